"""p4c-bm2-ss's BMv2 JSON loaded into the same IR as P4 source."""
