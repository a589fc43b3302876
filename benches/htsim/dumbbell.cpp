// htsim on the scale benchmark's dumbbell, for a same-day comparison with
// `cargo bench -p tcplab-core --bench scale` (README.md in this folder says how to build it).
// N long-lived htsim TCP flows (NewReno, an ACK per packet, 1500-byte packets); bottleneck R with
// 10 ms, access links 10R with 0.5 ms, so the base RTT is 22 ms; a 1-BDP drop-tail buffer at the
// bottleneck (R x 22 ms), 10,000 packets on access links; starts spread over 100 ms.
// Prints goodput, then wall time, per-hop transmissions (queue departures, data and ACKs) per
// wall second, and peak RSS. Usage: htsim-dumbbell GBPS FLOWS SECONDS
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <string>
#include <vector>
#include "config.h"
#include "eventlist.h"
#include "pipe.h"
#include "queue.h"
#include "tcp.h"
#include "route.h"

static uint64_t transmissions = 0;
static std::vector<TcpSink*> sinks;

// A drop-tail queue that counts the packets it has finished sending: one per hop, as tcplab counts.
class CountingQueue : public Queue {
public:
    CountingQueue(linkspeed_bps rate, mem_b size, EventList& ev) : Queue(rate, size, ev, NULL) {}
protected:
    void completeService() override { transmissions++; Queue::completeService(); }
};

static double peak_mb() {
    std::ifstream status("/proc/self/status");
    std::string line;
    while (std::getline(status, line))
        if (line.rfind("VmHWM:", 0) == 0) return std::atof(line.c_str() + 6) / 1024.0;
    return 0;
}

EventList eventlist;

int main(int argc, char** argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: %s GBPS FLOWS SECONDS\n", argv[0]);
        return 2;
    }
    double gbps = std::atof(argv[1]);
    int flows = std::atoi(argv[2]);
    double seconds = std::atof(argv[3]);
    Packet::set_packet_size(1500);
    auto setup_start = std::chrono::steady_clock::now();
    linkspeed_bps rate = speedFromMbps(gbps * 1000.0);
    linkspeed_bps access = speedFromMbps(gbps * 10000.0);
    mem_b bdp = (mem_b)(gbps * 1e9 * 0.022 / 8);
    mem_b access_buffer = memFromPkt(10000);
    eventlist.setEndtime(timeFromSec(seconds));
    CountingQueue bottleneck_fwd(rate, bdp, eventlist), bottleneck_rev(rate, bdp, eventlist);
    Pipe core_fwd(timeFromMs(10.0), eventlist), core_rev(timeFromMs(10.0), eventlist);
    TcpRtxTimerScanner scanner(timeFromMs(10.0), eventlist);
    for (int i = 0; i < flows; i++) {
        TcpSrc* src = new TcpSrc(NULL, NULL, eventlist);
        TcpSink* sink = new TcpSink();
        sinks.push_back(sink);
        scanner.registerTcp(*src);
        // Each way: the sending host's access link, one direction of the bottleneck, the
        // receiving host's access link (data one way, ACKs the other).
        auto route = [&](CountingQueue& bottleneck, Pipe& core, PacketSink* end) {
            Route* hops = new Route();
            hops->push_back(new CountingQueue(access, access_buffer, eventlist));
            hops->push_back(new Pipe(timeFromUs(500.0), eventlist));
            hops->push_back(&bottleneck);
            hops->push_back(&core);
            hops->push_back(new CountingQueue(access, access_buffer, eventlist));
            hops->push_back(new Pipe(timeFromUs(500.0), eventlist));
            hops->push_back(end);
            return hops;
        };
        Route* out = route(bottleneck_fwd, core_fwd, sink);
        Route* back = route(bottleneck_rev, core_rev, src);
        src->connect(*out, *back, *sink, timeFromUs(100000.0 * i / flows));
    }
    double setup = std::chrono::duration<double>(std::chrono::steady_clock::now() - setup_start).count();
    auto start = std::chrono::steady_clock::now();
    while (eventlist.doNextEvent()) {}
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double delivered = 0;
    for (TcpSink* sink : sinks) delivered += sink->_cumulative_ack;
    printf("goodput %.1f Mb/s (payload %d B per 1500 B packet)\n", delivered * 8 / seconds / 1e6, 1500);
    printf("htsim %g Gb/s %d flows %g s: setup %.3f s wall %.3f s packets %llu packets/wall s %.2f M peak %.1f MB\n",
           gbps, flows, seconds, setup, wall, (unsigned long long)transmissions, transmissions / wall / 1e6, peak_mb());
    return 0;
}
