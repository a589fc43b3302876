// tcplab's ns-3 engine: reading the plan that plan.py writes (its lines: main.cc).

#include "engine.h"

#include <sstream>

namespace tcplab
{

Attribute
ParseAttribute(const std::string& text)
{
    auto equals = text.find('=');
    NS_ABORT_MSG_IF(equals == std::string::npos, "plan: attribute without '=': " << text);
    return {text.substr(0, equals), text.substr(equals + 1)};
}

FlowPlan&
FlowById(Plan& plan, uint32_t id)
{
    for (auto& flow : plan.flows)
    {
        if (flow.id == id)
        {
            return flow;
        }
    }
    NS_ABORT_MSG("plan: attributes for an unknown flow " << id);
}

Plan
ReadPlan(const std::string& path)
{
    std::ifstream in(path);
    NS_ABORT_MSG_IF(!in, "cannot read the plan " << path);
    Plan plan;
    std::string line;
    while (std::getline(in, line))
    {
        std::istringstream fields(line);
        std::string kind;
        if (!(fields >> kind))
        {
            continue;
        }
        if (kind == "simulation")
        {
            fields >> plan.durationNs >> plan.sampleNs >> plan.seed >> plan.run;
        }
        else if (kind == "nodes")
        {
            fields >> plan.nodes;
        }
        else if (kind == "link")
        {
            LinkPlan link;
            fields >> link.a >> link.b >> link.delayAtoB >> link.delayBtoA >> link.rateAtoB >> link.rateBtoA >>
                link.flowControl;
            plan.links.push_back(link);
        }
        else if (kind == "device_queue")
        {
            uint32_t channel;
            fields >> channel >> plan.queues[channel].deviceQueue;
        }
        else if (kind == "queue_disc")
        {
            uint32_t channel;
            std::string attribute;
            fields >> channel >> plan.queues[channel].discType;
            while (fields >> attribute)
            {
                plan.queues[channel].discAttributes.push_back(ParseAttribute(attribute));
            }
        }
        else if (kind == "delay_step")
        {
            uint32_t channel;
            int64_t at, delay;
            fields >> channel >> at >> delay;
            plan.queues[channel].delaySteps.emplace_back(at, delay);
        }
        else if (kind == "drift")
        {
            uint32_t channel;
            fields >> channel;
            auto& queue = plan.queues[channel];
            fields >> queue.driftMinNs >> queue.driftMaxNs >> queue.driftIntervalNs;
        }
        else if (kind == "loss")
        {
            uint32_t channel;
            fields >> channel >> plan.queues[channel].lossRate;
        }
        else if (kind == "tcp" || kind == "udp")
        {
            FlowPlan flow;
            flow.tcp = kind == "tcp";
            fields >> flow.id >> flow.source >> flow.sink >> flow.startNs >> flow.stopNs;
            if (flow.tcp)
            {
                fields >> flow.sizeBytes >> flow.thinkNs >> flow.rateBps;
            }
            else
            {
                fields >> flow.rateBps >> flow.datagramBytes;
            }
            fields >> flow.onNs >> flow.offNs >> flow.exponential;
            if (flow.tcp)
            {
                fields >> flow.ccType >> flow.recoveryType;
            }
            plan.flows.push_back(flow);
        }
        else if (kind == "socket" || kind == "sink" || kind == "cc")
        {
            uint32_t id;
            std::string attribute;
            fields >> id >> attribute;
            auto& flow = FlowById(plan, id);
            auto& list = kind == "socket" ? flow.socketAttributes
                         : kind == "sink" ? flow.sinkAttributes
                                          : flow.ccAttributes;
            list.push_back(ParseAttribute(attribute));
        }
        else
        {
            NS_ABORT_MSG("plan: unknown line kind '" << kind << "'");
        }
        NS_ABORT_MSG_IF(fields.fail() && !fields.eof(), "plan: cannot read line: " << line);
    }
    return plan;
}

void
SetAll(Ptr<Object> object, const std::vector<Attribute>& attributes)
{
    for (const auto& attribute : attributes)
    {
        object->SetAttribute(attribute.name, StringValue(attribute.value));
    }
}

std::string
Seconds9(Time time)
{
    char text[32];
    std::snprintf(text, sizeof text, "%.9f", time.GetSeconds());
    return text;
}

} // namespace tcplab
