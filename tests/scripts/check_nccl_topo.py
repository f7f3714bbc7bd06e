#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
# Judges an NCCL topology file with Python's own XML parser and, attribute by attribute, the
# rules of NCCL's reader (src/graph/xml.cc loads the file, topo.cc's ncclTopoAddCpu and
# ncclTopoAddPci read it; docs/export.md, nccl-topo):
#
#   <system>  version, which must be 1 (ncclTopoXmlLoadSystem).
#   <cpu>     numaid (required); arch (required: NCCL matches "x86_64", "arm64", "ppc64" as
#             prefixes and leaves any other arch undefined); on x86_64 vendor (required:
#             "GenuineIntel", "AuthenticAMD", "CentaurHauls", "  Shanghai  "); on Intel
#             familyid and modelid, on AMD familyid, on Zhaoxin both (required integers);
#             affinity (used: a hex cpumask, else NCCL reads the host's node<numaid>/cpumap).
#   <pci>     busid (required, sysfs's lower-case form: NCCL compares the strings), class
#             (required), link_width (required integer, 0 read as x16), link_speed (required,
#             matched as a prefix of NCCL's table, anything else read as 8 GT/s); vendor,
#             device (used: NIC identity, the device id of a GPU) and on a bridge
#             subsystem_vendor, subsystem_device (used: NCCL recognises Broadcom switches by
#             all four, ncclTopoFlattenBcmSwitches).
#   every element at most 16 attributes, every value under 255 characters, no escapes.
#
# A required attribute that is missing fails the file, naming it. With --strict an attribute
# NCCL uses, or a value it would not read as written (link_width 0, an unknown link_speed),
# fails it too: a file for a VM must carry them, as NCCL cannot fill them from the VM's
# sysfs. Prints one line per GPU (a <pci> of class 0x03...), in document order:
# "busid=B numaid=M depth=D link=SPEED,WIDTH".
import re
import sys
import xml.etree.ElementTree as ET

BUS_ID = re.compile(r"^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-7]$")
INTEGER = re.compile(r"^-?(0x[0-9a-fA-F]+|[0-9]+)$")
CPUMASK = re.compile(r"^[0-9a-f]{1,8}(,[0-9a-f]{8})*$")
ARCHES = ("x86_64", "arm64", "ppc64")
VENDORS = {"GenuineIntel": "intel", "AuthenticAMD": "amd",
           "CentaurHauls": "zhaoxin", "  Shanghai  ": "zhaoxin"}
# Which of familyid and modelid each vendor's branch of ncclTopoAddCpu reads.
CPU_IDS = {"intel": ("familyid", "modelid"), "amd": ("familyid",),
           "zhaoxin": ("familyid", "modelid")}
# ncclTopoAddPci's speed table, in its order; the first entry that prefixes the value wins.
SPEEDS = ("2.5 GT/s", "5 GT/s", "8 GT/s", "16 GT/s", "32 GT/s", "2.5 GT/s PCIe",
          "5.0 GT/s PCIe", "8.0 GT/s PCIe", "16.0 GT/s PCIe", "32.0 GT/s PCIe",
          "64.0 GT/s PCIe")
MAX_ATTRIBUTES = 16
STRICT = "--strict" in sys.argv[1:]


def fail(why):
    print("check_nccl_topo: " + why, file=sys.stderr)
    sys.exit(1)


def name_of(node):
    key = "busid" if node.tag == "pci" else "numaid"
    return "<%s %s=%r>" % (node.tag, key, node.get(key, ""))


def required(node, key, reader):
    if key not in node.attrib:
        fail("%s: no %s, which NCCL's %s requires" % (name_of(node), key, reader))
    return node.get(key)


def used(node, key, why):
    if STRICT and key not in node.attrib:
        fail("%s: no %s, which NCCL uses (%s)" % (name_of(node), key, why))
    return node.get(key)


def integer(node, key, reader):
    value = required(node, key, reader)
    if not INTEGER.match(value):
        fail("%s: %s=%r is not an integer NCCL can read" % (name_of(node), key, value))
    return int(value, 0)


def check_values(node):
    if len(node.attrib) > MAX_ATTRIBUTES:
        fail("%s: %d attributes, NCCL reads %d" % (name_of(node), len(node.attrib), MAX_ATTRIBUTES))
    for key, value in node.attrib.items():
        if len(value) > 254 or any(c in value for c in "\"<>&\r\n"):
            fail("%s: %s is longer than NCCL reads or needs escapes" % (name_of(node), key))


def check_cpu(cpu):
    check_values(cpu)
    integer(cpu, "numaid", "ncclTopoAddCpu")
    affinity = used(cpu, "affinity", "the CPUs it binds to, else the host's node cpumap")
    if affinity is not None and not CPUMASK.match(affinity):
        fail("%s: affinity=%r is not a cpumask" % (name_of(cpu), affinity))
    arch = required(cpu, "arch", "ncclTopoAddCpu")
    if not arch.startswith(ARCHES):
        fail("%s: arch=%r is none of %s: NCCL leaves it undefined" % (name_of(cpu), arch, ARCHES))
    if not arch.startswith("x86_64"):
        return
    vendor = required(cpu, "vendor", "ncclTopoAddCpu on x86_64")
    kind = next((k for v, k in VENDORS.items() if vendor.startswith(v)), None)
    if kind is None:
        fail("%s: vendor=%r is not one NCCL knows" % (name_of(cpu), vendor))
    for key in CPU_IDS[kind]:
        integer(cpu, key, "ncclTopoAddCpu for %s" % vendor)


def check_link(node):
    width = integer(node, "link_width", "ncclTopoAddPci")
    speed = required(node, "link_speed", "ncclTopoAddPci")
    if STRICT and width == 0:
        fail("%s: link_width=\"0\", which NCCL reads as x16 (width unknown)" % name_of(node))
    if STRICT and not speed.startswith(SPEEDS):
        fail("%s: link_speed=%r is not in NCCL's table: it reads 8 GT/s" % (name_of(node), speed))
    return "%s,%d" % (speed, width)


def check_pci(node, numaid, depth, out):
    check_values(node)
    busid = required(node, "busid", "ncclTopoAddPci")
    if not BUS_ID.match(busid):
        fail("%s: not a bus id in sysfs's form" % name_of(node))
    pci_class = required(node, "class", "ncclTopoAddPci")
    link = check_link(node)
    used(node, "vendor", "a NIC's and a switch's identity")
    used(node, "device", "a NIC's and a switch's identity")
    if pci_class.startswith("0x0604"):
        used(node, "subsystem_vendor", "Broadcom switches are recognised by it")
        used(node, "subsystem_device", "Broadcom switches are recognised by it")
    if pci_class.startswith("0x03"):
        if len(node):
            fail("GPU %s has children: NCCL adds them from NVML" % busid)
        out.append("busid=%s numaid=%s depth=%d link=%s" % (busid, numaid, depth, link))
    for child in node:
        if child.tag != "pci":
            fail("unexpected <%s> in %s" % (child.tag, name_of(node)))
        check_pci(child, numaid, depth + 1, out)


def main():
    paths = [a for a in sys.argv[1:] if not a.startswith("--")]
    text = open(paths[0], encoding="ascii").read()
    if not text.startswith('<system version="1"') or "<!--" in text or "<?" in text:
        fail("the document must start at <system version=\"1\"> with no prolog or comment")
    root = ET.fromstring(text)
    gpus = []
    for cpu in root:
        if cpu.tag != "cpu":
            fail("<system> holds a <%s>" % cpu.tag)
        check_cpu(cpu)
        for child in cpu:
            if child.tag != "pci":
                fail("unexpected <%s> in %s" % (child.tag, name_of(cpu)))
            check_pci(child, cpu.get("numaid"), 0, gpus)
    print("\n".join(gpus))


main()
