/* Inlined at -O2: twice() and sq() fold into _start. */
static inline __attribute__((always_inline)) int sq(int x)
{
	return x * x + 3;
}

static inline __attribute__((always_inline)) int twice(int x)
{
	return sq(x) + sq(x + 1);
}

volatile int sink;

void _start(void)
{
	for (int i = 0; i < 10; i++)
		sink = twice(sink + i);
	for (;;)
		__asm__ volatile("hlt");
}
