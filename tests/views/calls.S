/* SPDX-License-Identifier: MIT */
/*
 * The program behind the decoder's view tests (views.t): it is never run. Its control flow,
 * read from this source, gives the records of calls.records; its bytes, symbols and lines
 * (assembled and linked by views.t) are what btdecode names and decodes them with. Every
 * branch site and target has a local label (.o only: the link drops them with -x) so that
 * views.t takes their addresses from nm, not from btdecode.
 *
 * The path: _start calls main; main calls leaf twice in a loop (JNZ taken once, then falls
 * through), an interrupt arrives at the DEC after the first return (its handler isr IRETs
 * back), then main calls leaf through a register, tail-jumps to tail, and tail returns
 * straight to _start.
 */
	.text
	.globl	_start, main, tail, leaf, isr

	.type	_start, @function
_start:
	xor	%eax, %eax
s_call_main:
	call	main
s_after_main:
	hlt
	.size	_start, . - _start

	.type	main, @function
main:
	mov	$2, %ecx
m_loop:
m_call_leaf:
	call	leaf
m_after_leaf:
	dec	%ecx
m_jnz:
	jnz	m_loop
	lea	leaf(%rip), %rax
m_call_ind:
	call	*%rax
m_after_ind:
m_tail:
	jmp	tail
	.size	main, . - main

	.type	tail, @function
tail:
	nop
t_ret:
	ret
	.size	tail, . - tail

	.type	leaf, @function
leaf:
	nop
l_ret:
	ret
	.size	leaf, . - leaf

	.type	isr, @function
isr:
	nop
i_iret:
	iretq
	.size	isr, . - isr
