#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Judges an NCCL topology file with Python's own XML parser and the rules of NCCL's reader
# (src/graph/xml.cc): the document starts at <system version="1"> (no prolog, no comments),
# every <cpu> has a numaid, every <pci> a bus id in sysfs's form and a class, every value fits
# NCCL's 255 characters. Prints one line per GPU (a <pci> of class 0x03...), in document
# order: "busid=B numaid=M depth=D link=SPEED,WIDTH".
import re
import sys
import xml.etree.ElementTree as ET

BUS_ID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def fail(why):
    print("check_nccl_topo: " + why, file=sys.stderr)
    sys.exit(1)


def walk(node, numaid, depth, out):
    for child in node:
        if child.tag != "pci":
            fail("unexpected <%s> in <%s>" % (child.tag, node.tag))
        busid, pci_class = child.get("busid", ""), child.get("class", "")
        if not BUS_ID.match(busid) or not pci_class:
            fail("<pci busid=%r class=%r>" % (busid, pci_class))
        if any(len(value) > 254 for value in child.attrib.values()):
            fail("a value longer than NCCL reads in %s" % busid)
        if pci_class.startswith("0x03"):
            if len(child):
                fail("GPU %s has children: NCCL adds them from NVML" % busid)
            out.append("busid=%s numaid=%s depth=%d link=%s,%s" % (
                busid, numaid, depth, child.get("link_speed", "-"), child.get("link_width", "-")))
        walk(child, numaid, depth + 1, out)


def main():
    text = open(sys.argv[1], encoding="ascii").read()
    if not text.startswith('<system version="1"') or "<!--" in text or "<?" in text:
        fail("the document must start at <system version=\"1\"> with no prolog or comment")
    root = ET.fromstring(text)
    gpus = []
    for cpu in root:
        if cpu.tag != "cpu" or not re.match(r"^-?[0-9]+$", cpu.get("numaid", "")):
            fail("<system> holds a <%s> without a numaid" % cpu.tag)
        walk(cpu, cpu.get("numaid"), 0, gpus)
    print("\n".join(gpus))


main()
