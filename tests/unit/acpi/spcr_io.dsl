/*
 * A server's BMC console (serial over LAN) on COM1: 16550, port I/O 0x3F8, 115200 baud,
 * RTS/CTS; the shape x86 servers' SPCR tables take.
 * iasl data-table source (iasl -T SPCR's layout); the Makefile compiles it with Debian's iasl
 * (acpica-tools), which fills in the length and checksum.
 */
[0004]                          Signature : "SPCR"
[0004]                       Table Length : 00000000
[0001]                           Revision : 02
[0001]                           Checksum : 00
[0006]                             Oem ID : "BTRACE"
[0008]                       Oem Table ID : "TESTTBL "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0001]                     Interface Type : 00
[0003]                           Reserved : 000000

[0012]               Serial Port Register : [Generic Address Structure]
[0001]                           Space ID : 01
[0001]                          Bit Width : 08
[0001]                         Bit Offset : 00
[0001]               Encoded Access Width : 01
[0008]                            Address : 00000000000003F8

[0001]                     Interrupt Type : 01
[0001]                PCAT-compatible IRQ : 04
[0004]                          Interrupt : 00000000
[0001]                          Baud Rate : 07
[0001]                             Parity : 00
[0001]                          Stop Bits : 01
[0001]                       Flow Control : 02
[0001]                      Terminal Type : 03
[0001]                           Reserved : 00
[0002]                      PCI Device ID : FFFF
[0002]                      PCI Vendor ID : FFFF
[0001]                            PCI Bus : 00
[0001]                         PCI Device : 00
[0001]                       PCI Function : 00
[0004]                          PCI Flags : 00000000
[0001]                        PCI Segment : 00
[0004]                           Reserved : 00000000
