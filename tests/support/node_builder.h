#pragma once
// Facts for rule tests, written in code: a healthy ND96isr_H100_v5 node that each test breaks in
// one way. Rules never read files, so their tests never need any.
#include <string>

#include "facts/node_facts.h"

namespace trainready::test {

NodeFacts healthy_nd_h100(const std::string& label = "node-1");
// The same node with every fact missing.
NodeFacts empty_node(const std::string& label = "node-1");
IbPort ib_port(int number, const std::string& state, const std::string& phys, double rate,
               const std::string& layer = "InfiniBand", const std::string& pkey = "0x8001");

}  // namespace trainready::test
