// Fuzz target: the List Blobs response parser (libxml2 underneath) of the Blob source.
#include "blob/blob_listing.h"
#include "fuzz/fuzz_target.h"

TRAINREADY_FUZZ_TARGET(list_blobs, text) {
  (void)trainready::parse_list_blobs(text, "fuzz");
  (void)trainready::parse_error_body(text);
}
