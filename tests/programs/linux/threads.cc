// SPDX-License-Identifier: MIT
// A threaded static C++ program (libstdc++'s std::thread, std::mutex, std::condition_variable,
// std::barrier, std::async): WORKERS threads (argv[1], default 3). What it prints depends on
// nothing but its source:
//   - each worker sums the cubes of its own range of 1..WORKERS*RANGE into a total under a
//     std::mutex: "cubes: " (n(n+1)/2)^2;
//   - a std::barrier of WORKERS + 1, then the main thread hands 1..ITEMS through a deque guarded
//     by a mutex and a condition variable: "items: " ITEMS(ITEMS+1)/2;
//   - std::async(std::launch::async) runs a task on a thread of its own: "async: " 6 * 7;
//   - each worker's std::this_thread::get_id() differs from the others': "ids: distinct".
#include <barrier>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <deque>
#include <future>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

static const long RANGE = 40, ITEMS = 100;

int main(int argc, char **argv)
{
	int n = argc > 1 ? std::atoi(argv[1]) : 3;
	std::mutex m;
	std::condition_variable cv;
	std::deque<long> q;
	std::barrier sync(n + 1);
	long cubes = 0, items = 0;
	std::vector<std::thread::id> ids(n);
	std::vector<std::thread> t;
	for (int i = 0; i < n; i++)
		t.emplace_back([&, i] {
			ids[i] = std::this_thread::get_id();
			long sum = 0;
			for (long k = i * RANGE + 1; k <= (i + 1) * RANGE; k++)
				sum += k * k * k;
			{
				std::lock_guard<std::mutex> g(m);
				cubes += sum;
			}
			sync.arrive_and_wait();
			long got = 0;
			for (;;) {
				std::unique_lock<std::mutex> g(m);
				cv.wait(g, [&] { return !q.empty(); });
				long v = q.front();
				q.pop_front();
				if (v < 0)
					break;
				got += v;
			}
			std::lock_guard<std::mutex> g(m);
			items += got;
		});
	sync.arrive_and_wait();
	for (long v = 1; v <= ITEMS; v++) {
		std::lock_guard<std::mutex> g(m);
		q.push_back(v);
		cv.notify_one();
	}
	{
		std::lock_guard<std::mutex> g(m);
		for (int i = 0; i < n; i++)
			q.push_back(-1);
		cv.notify_all();
	}
	for (auto &w : t)
		w.join();
	auto answer = std::async(std::launch::async, [] { return 6 * 7; });
	long all = n * RANGE, want = all * (all + 1) / 2;
	std::printf("workers: %d\n", n);
	std::printf("cubes: %ld (want %ld)\n", cubes, want * want);
	std::printf("items: %ld (want %ld)\n", items, ITEMS * (ITEMS + 1) / 2);
	std::printf("async: %d\n", answer.get());
	std::printf("ids: %s\n",
		    std::set<std::thread::id>(ids.begin(), ids.end()).size() == (size_t)n
			? "distinct"
			: "NOT distinct");
	return 0;
}
