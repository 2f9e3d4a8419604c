/*
 * A USB debug port (type 8002h, XHCI) first, then a memory-mapped 16550 with 32-bit
 * registers (subtype 0x12): the serial one is taken.
 * iasl data-table source (iasl -T DBG2's layout); the Makefile compiles it with Debian's iasl
 * (acpica-tools), which fills in the length and checksum.
 */
[0004]                          Signature : "DBG2"
[0004]                       Table Length : 00000000
[0001]                           Revision : 00
[0001]                           Checksum : 00
[0006]                             Oem ID : "BTRACE"
[0008]                       Oem Table ID : "TESTTBL "
[0004]                       Oem Revision : 00000001
[0004]                    Asl Compiler ID : "INTL"
[0004]              Asl Compiler Revision : 20200925

[0004]                        Info Offset : 0000002C
[0004]                         Info Count : 00000002

[0001]                           Revision : 00
[0002]                             Length : 0000
[0001]                     Register Count : 01
[0002]                    Namepath Length : 0002
[0002]                    Namepath Offset : 0000
[0002]                    OEM Data Length : 0000
[0002]                    OEM Data Offset : 0000
[0002]                          Port Type : 8002
[0002]                       Port Subtype : 0000
[0002]                           Reserved : 0000
[0002]                Base Address Offset : 0000
[0002]                Address Size Offset : 0000

[0012]              Base Address Register : [Generic Address Structure]
[0001]                           Space ID : 00
[0001]                          Bit Width : 20
[0001]                         Bit Offset : 00
[0001]               Encoded Access Width : 03
[0008]                            Address : 00000000FED00000

[0004]                       Address Size : 00001000

[0002]                           Namepath : "."

[0001]                           Revision : 00
[0002]                             Length : 0000
[0001]                     Register Count : 01
[0002]                    Namepath Length : 0002
[0002]                    Namepath Offset : 0000
[0002]                    OEM Data Length : 0000
[0002]                    OEM Data Offset : 0000
[0002]                          Port Type : 8000
[0002]                       Port Subtype : 0012
[0002]                           Reserved : 0000
[0002]                Base Address Offset : 0000
[0002]                Address Size Offset : 0000

[0012]              Base Address Register : [Generic Address Structure]
[0001]                           Space ID : 00
[0001]                          Bit Width : 20
[0001]                         Bit Offset : 00
[0001]               Encoded Access Width : 03
[0008]                            Address : 00000000FE036000

[0004]                       Address Size : 00001000

[0002]                           Namepath : "."
