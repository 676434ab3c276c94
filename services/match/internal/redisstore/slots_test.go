package redisstore

import (
	"strings"
	"testing"
)

func TestSlots(t *testing.T) {
	// CRC-16/XMODEM's check value, and the cluster specification's examples.
	if c := crc16([]byte("123456789")); c != 0x31C3 {
		t.Fatalf("crc16 check: %#x", c)
	}
	if a, b := hashSlot("{user1000}.following"), hashSlot("{user1000}.followers"); a != b || a != hashSlot("user1000") {
		t.Errorf("hash tags: %d %d", a, b)
	}
	if hashSlot("foo{}{bar}") != hashSlot("foo{}{bar}x"[:10]) || hashSlot("foo{{bar}}zap") != hashSlot("{bar") {
		t.Error("hash tag edge cases")
	}
	per := map[int]int{} // buckets per primary of redis-cli's 3-way split
	for b := range Buckets {
		if hashSlot(bucketTags[b]) != bucketSlot(b) {
			t.Fatalf("bucket %d: tag %q in slot %d, want %d", b, bucketTags[b], hashSlot(bucketTags[b]), bucketSlot(b))
		}
		per[min(bucketSlot(b)/5461, 2)]++
		for range 20 {
			id := newID(b)
			if len(id) != 26 || strings.Trim(id, alphabet) != "" || bucketOfID(id) != b {
				t.Fatalf("newID(%d) = %q: slot %d, bucket %d", b, id, hashSlot(id), bucketOfID(id))
			}
		}
	}
	if per[0] != Buckets/3 || per[1] != Buckets/3 || per[2] != Buckets/3 {
		t.Errorf("buckets over three primaries: %v", per)
	}
	if bucketOfID("not-a-bucket-id") != legacy && hashSlot("not-a-bucket-id") != bucketSlot(bucketOfID("not-a-bucket-id")) {
		t.Error("a legacy id given a bucket")
	}
}
