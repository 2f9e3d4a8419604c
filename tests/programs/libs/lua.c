/* SPDX-License-Identifier: MIT */
// LINK: -llua5.4 -lm
/* A real program on Debian's Lua 5.4 (static): a script with recursion, closures, string
 * building and pattern matching, a table sorted with a Lua comparator, an error caught by
 * pcall. Output: what the script prints. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>

static const char script[] =
    "local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end\n"
    "print('fib', fib(18))\n"
    "local t = {}\n"
    "for i = 1, 200 do t[i] = (i * 7919) % 211 end\n"
    "table.sort(t, function(a, b) return a > b end)\n"
    "print('sorted', t[1], t[2], t[100], t[200])\n"
    "local words = {}\n"
    "for w in ('the quick brown fox jumps over the lazy dog'):gmatch('%a+') do\n"
    "  words[#words + 1] = w:upper() end\n"
    "print(table.concat(words, ','))\n"
    "local ok, err = pcall(function() error('boom') end)\n"
    "print('pcall', ok, err)\n"
    "local acc = {}\n"
    "for i = 1, 50 do acc[#acc + 1] = string.format('%02x', i * 5 % 256) end\n"
    "print(#table.concat(acc))\n"
    "io.stderr:write('to stderr\\n')\n";

int main(void)
{
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	int rc = luaL_dostring(L, script);
	if (rc != LUA_OK)
		fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
	lua_close(L);
	return rc;
}
