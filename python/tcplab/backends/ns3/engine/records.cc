// tcplab's ns-3 engine: the records every part writes to and the report reads.

#include "engine.h"

namespace tcplab
{

std::vector<FlowRecord> g_flows;
std::vector<ChannelMonitor> g_channels;
std::ofstream g_samples;

void
WriteEvent(uint32_t flow, const std::string& event)
{
    g_samples << "E " << Seconds9(Simulator::Now()) << " " << flow << " " << event << "\n";
}

} // namespace tcplab
