#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Judges an NCCL topology file with Python's own XML parser and the rules of NCCL's reader
# (src/graph/xml.cc): the document starts at <system version="1"> (no prolog, no comments),
# a <cpu> has a numaid, every <pci> a sysfs bus id, every <gpu> sits in a <pci> and every
# <nvlink> in a <gpu>, with a count and a target class; a GPU-class target must be a GPU of
# the file. Prints one line per GPU: "dev=N busid=B numaid=M depth=D links=L classes=C".
import re
import sys
import xml.etree.ElementTree as ET

BUS_ID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")


def fail(why):
    print("check_nccl_topo: " + why, file=sys.stderr)
    sys.exit(1)


def walk(node, numaid, depth, out, gpu_buses):
    for child in node:
        if child.tag == "pci":
            busid = child.get("busid", "")
            if not BUS_ID.match(busid):
                fail("pci busid %r is not sysfs's form" % busid)
            walk(child, numaid, depth + 1, out, gpu_buses)
        elif child.tag == "gpu":
            if node.tag != "pci":
                fail("a <gpu> outside a <pci>")
            gpu_buses.add(node.get("busid"))
            out.append((int(child.get("dev")), node.get("busid"), numaid, depth, child))
        else:
            fail("unexpected <%s> in <%s>" % (child.tag, node.tag))


def main():
    text = open(sys.argv[1], encoding="ascii").read()
    if not text.startswith('<system version="1"') or "<!--" in text or "<?" in text:
        fail("the document must start at <system version=\"1\"> with no prolog or comment")
    root = ET.fromstring(text)
    gpus, gpu_buses = [], set()
    for cpu in root:
        if cpu.tag != "cpu" or cpu.get("numaid") is None:
            fail("<system> holds a <%s> without a numaid" % cpu.tag)
        walk(cpu, cpu.get("numaid"), 0, gpus, gpu_buses)
    for dev, busid, numaid, depth, gpu in sorted(gpus, key=lambda g: g[0]):
        links, classes = 0, set()
        for link in gpu:
            if link.tag != "nvlink" or int(link.get("count", "0")) <= 0 or not link.get("tclass"):
                fail("GPU %d: a malformed <%s>" % (dev, link.tag))
            if link.get("tclass").startswith("0x03") and link.get("target") not in gpu_buses:
                fail("GPU %d: NVLink to %s, which is no GPU of the file" % (dev, link.get("target")))
            links += int(link.get("count"))
            classes.add(link.get("tclass"))
        print("dev=%d busid=%s numaid=%s depth=%d links=%d classes=%s"
              % (dev, busid, numaid, depth, links, ",".join(sorted(classes)) or "-"))


main()
