// A C++ program (tests/qemu/linux.t builds it with g++ -static): iostream, a thrown and caught
// exception (the unwinder reads its own .eh_frame), a std::vector and std::string.
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

static int depth(int n)
{
	if (n == 0)
		throw std::runtime_error("bottom reached");
	return depth(n - 1) + 1;
}

int main(int argc, char **argv)
{
	std::vector<std::string> words(argv, argv + argc);
	for (const auto &w : words)
		std::cout << "word " << w << '\n';
	try {
		depth(10);
	} catch (const std::exception &e) {
		std::cout << "caught: " << e.what() << std::endl;
		return 7;
	}
	return 1;
}
