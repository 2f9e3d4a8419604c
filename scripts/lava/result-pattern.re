(?mx)
# One LAVA test case per result line of baretrace's result contract (README "The result
# contract"). Verbose regex: blanks and '#' comments are not part of the pattern ([ ] is a blank).
# The match starts at the line's start, or at the newline before "run finished:" so that the end
# string stays for the monitor's end; a line counts only once it is whole (its newline is there).
(?: \n(?=run[ ]finished:[ ]) | ^ )
(?=
  (?: (?:not[ ])?ok[ ]\d+[ ]-[ ] )?
  (?P<test_case_id>
      selfcheck[ ][^:\#\r\n]*?(?=:[ ]|[ ]\#[ ]SKIP)   # ok N - selfcheck FAC WORKLOAD@PERS cpu=N: ...
    | summary:[ ][a-z]+(?=[ ]+\d)                     # summary: FAC sessions passed failed ...
    | run[ ]finished(?=:[ ])                          # run finished: VERDICT
  )
  [^\r\n]*\r*\n
)
(?=
  (?: ok[ ]\d+[ ]-[ ]selfcheck[ ][^\#\r\n]*\#[ ](?=SKIP)                    # skipped: SKIP
    | summary:[ ][a-z]+[ ]+\d+[ ]+\d+[ ]+(?=[1-9])                          # failed > 0: its 1st digit
    | summary:[ ][a-z]+[ ]+\d+[ ]+\d+[ ]+0[ ]+\d+[ ]+(?=[1-9])              # incomplete > 0: its 1st digit
    | summary:[ ][a-z]+[ ]+\d+[ ]+[1-9]\d*[ ]+(?=0[ ]+\d+[ ]+0[ ])          # passed > 0, none failed: "0"
    | summary:[ ][a-z]+[ ]+\d+[ ]+0[ ]+0[ ]+\d+[ ]+0(?=[ ])                  # none passed or failed: ""
    | run[ ]finished:[ ]
  )?
  (?P<result> SKIP | not[ ]ok | ok(?![^\r\n]*\#[ ]SKIP) | PASS | FAIL | BAD-INPUT | INCOMPLETE
    | [0-9] | (?<=[ ]0)(?=[ ]) )
)
(?: (?=run[ ]finished:) | [^\r\n]+ )
