// htsim on a k-ary fat tree with permutation traffic, for a same-day comparison with the scale
// benchmark's fat-tree sizes (`cargo bench -p tcplab-core --bench scale -- fat8 fat16`, which run
// scenarios/fat-tree-k8.toml and fat-tree-k16.toml). htsim's own FatTreeTopology (3 tiers, k^3/4
// hosts), every link 10 Gbit/s with 1 us of propagation delay, 100-packet switch buffers that
// mark ECN above htsim's fixed 15 packets (its ECN queue), DCTCP sources with 1500-byte packets.
// Each host sends one long-lived flow to another (a random derangement drawn from SEED), on one of
// its shortest paths drawn at random (per-flow ECMP, as tcplab's fat tree routes); all start at 0.
// Prints goodput, then wall time, per-hop transmissions (queue departures, data and ACKs) per
// wall second, and peak RSS, in dumbbell.cpp's format. Usage: htsim-fat-tree K SECONDS [SEED]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <string>
#include <vector>
#include "config.h"
#include "dctcp.h"
#include "eventlist.h"
#include "fat_tree_topology.h"
#include "loggers.h"
#include "tcp.h"

// Counts the packets every queue has finished sending: one per hop, as tcplab counts. The
// topology makes its own queues, so the count comes from a logger set on each of them.
class ServiceCounter : public QueueLogger {
public:
    unsigned long long served = 0;
    void logQueue(BaseQueue&, QueueEvent ev, Packet&) override {
        if (ev == PKT_SERVICE) served++;
    }
};

static double peak_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
    return 0;
}

// Sets the counter on every queue of one of the topology's [from][to][bundle] tables.
static void count_queues(std::vector<std::vector<std::vector<BaseQueue*>>>& table, ServiceCounter& counter) {
    for (auto& row : table)
        for (auto& bundle : row)
            for (BaseQueue* queue : bundle)
                if (queue) queue->setLogger(&counter);
}

EventList eventlist;

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s K SECONDS [SEED]\n", argv[0]);
        return 2;
    }
    int k = std::atoi(argv[1]);
    double seconds = std::atof(argv[2]);
    unsigned seed = argc > 3 ? std::atoi(argv[3]) : 1;
    Packet::set_packet_size(1500);
    auto setup_start = std::chrono::steady_clock::now();
    eventlist.setEndtime(timeFromSec(seconds));
    uint32_t hosts = k * k * k / 4;
    FatTreeTopology topology(hosts, speedFromMbps(10000.0), memFromPkt(100), NULL, &eventlist, NULL, ECN,
                             timeFromUs(1.0), 0);
    ServiceCounter counter;
    for (auto* table : {&topology.queues_ns_nlp, &topology.queues_nlp_ns, &topology.queues_nlp_nup,
                        &topology.queues_nup_nlp, &topology.queues_nup_nc, &topology.queues_nc_nup})
        count_queues(*table, counter);

    // A derangement: shuffle until no host sends to itself.
    std::mt19937 rng(seed);
    std::vector<uint32_t> destination(hosts);
    for (uint32_t i = 0; i < hosts; i++) destination[i] = i;
    bool fixed_point = true;
    while (fixed_point) {
        std::shuffle(destination.begin(), destination.end(), rng);
        fixed_point = false;
        for (uint32_t i = 0; i < hosts; i++) fixed_point |= destination[i] == i;
    }

    TcpRtxTimerScanner scanner(timeFromMs(10.0), eventlist);
    std::vector<TcpSink*> sinks;
    for (uint32_t src = 0; src < hosts; src++) {
        std::vector<const Route*>* paths = topology.get_bidir_paths(src, destination[src], true);
        const Route* path = paths->at(std::uniform_int_distribution<size_t>(0, paths->size() - 1)(rng));
        DCTCPSrc* source = new DCTCPSrc(NULL, NULL, eventlist);
        TcpSink* sink = new TcpSink();
        sinks.push_back(sink);
        scanner.registerTcp(*source);
        Route* out = new Route(*path);
        out->push_back(sink);
        Route* back = new Route(*path->reverse());
        back->push_back(source);
        source->connect(*out, *back, *sink, 0);
    }
    double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    auto start = std::chrono::steady_clock::now();
    while (eventlist.doNextEvent()) {}
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double delivered = 0;
    for (TcpSink* sink : sinks) delivered += sink->_cumulative_ack;
    printf("goodput %.1f Mb/s (payload %d B per 1500 B packet)\n", delivered * 8 / seconds / 1e6, 1500);
    printf("htsim fat tree k=%d %u flows %g s: setup %.3f s wall %.3f s packets %llu packets/wall s %.2f M peak %.1f MB\n",
           k, hosts, seconds, setup, wall, counter.served, counter.served / wall / 1e6, peak_mb());
    return 0;
}
