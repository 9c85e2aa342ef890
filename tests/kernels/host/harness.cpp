// Runs one kernel compiled for the host: harness <dir> <gx gy gz> <bx by bz> <kinds>, where kinds
// has one letter per argument, b (buffer) or s (scalar), and <dir>/<index>.bin holds each
// argument's bytes. Workgroups run one after another, each work-item on its own thread; every
// buffer is written back to <dir>/<index>.out. The kernel's source is included by -include.
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <tuple>
#include <utility>
#include <vector>

host_dispatch g_dispatch;
thread_local uint g_tid[3], g_wg[3];

template <typename T> static T arg(const std::vector<char> &bytes) {
  T value;
  std::memcpy(&value, bytes.data(), sizeof(T));
  return value;
}

template <typename... P, size_t... I>
static void invoke(void (*kernel)(P...), const std::vector<std::vector<char>> &args, std::index_sequence<I...>) {
  kernel(arg<P>(args[I])...);
}

template <typename... P> static void invoke(void (*kernel)(P...), const std::vector<std::vector<char>> &args) {
  invoke(kernel, args, std::index_sequence_for<P...>{});
}

int main(int argc, char **argv) {
  if (argc != 9) {
    std::fprintf(stderr, "usage: harness dir gx gy gz bx by bz kinds\n");
    return 2;
  }
  std::string dir = argv[1], kinds = argv[8];
  for (int d = 0; d < 3; d++) {
    g_dispatch.grid[d] = std::stoul(argv[2 + d]);
    g_dispatch.block[d] = std::stoul(argv[5 + d]);
  }
  uint16_t wgsize[3] = {(uint16_t)g_dispatch.block[0], (uint16_t)g_dispatch.block[1], (uint16_t)g_dispatch.block[2]};
  uint32_t gridsize[3] = {g_dispatch.grid[0] * wgsize[0], g_dispatch.grid[1] * wgsize[1], g_dispatch.grid[2] * wgsize[2]};
  std::memcpy(g_dispatch.packet + 4, wgsize, sizeof wgsize);
  std::memcpy(g_dispatch.packet + 12, gridsize, sizeof gridsize);

  std::vector<std::vector<char>> buffers(kinds.size()), args(kinds.size());
  for (size_t k = 0; k < kinds.size(); k++) {
    std::ifstream in(dir + "/" + std::to_string(k) + ".bin", std::ios::binary);
    buffers[k].assign(std::istreambuf_iterator<char>(in), {});
    if (kinds[k] == 'b') {
      void *p = buffers[k].data();
      args[k].resize(sizeof p);
      std::memcpy(args[k].data(), &p, sizeof p);
    } else {
      args[k] = buffers[k];
    }
  }
  uint items = g_dispatch.block[0] * g_dispatch.block[1] * g_dispatch.block[2];
  for (uint gz = 0; gz < g_dispatch.grid[2]; gz++)
    for (uint gy = 0; gy < g_dispatch.grid[1]; gy++)
      for (uint gx = 0; gx < g_dispatch.grid[0]; gx++) {
        std::barrier<> barrier(items);
        g_dispatch.barrier = &barrier;
        std::vector<std::thread> threads;
        for (uint t = 0; t < items; t++)
          threads.emplace_back([&, t] {
            g_wg[0] = gx, g_wg[1] = gy, g_wg[2] = gz;
            g_tid[0] = t % g_dispatch.block[0];
            g_tid[1] = t / g_dispatch.block[0] % g_dispatch.block[1];
            g_tid[2] = t / (g_dispatch.block[0] * g_dispatch.block[1]);
            invoke(KERNEL_NAME, args);
            barrier.arrive_and_drop();  // a work-item that returned no longer holds the others up
          });
        for (auto &thread : threads)
          thread.join();
      }
  for (size_t k = 0; k < kinds.size(); k++)
    if (kinds[k] == 'b') {
      std::ofstream out(dir + "/" + std::to_string(k) + ".out", std::ios::binary);
      out.write(buffers[k].data(), buffers[k].size());
    }
  return 0;
}
