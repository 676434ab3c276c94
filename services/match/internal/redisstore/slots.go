package redisstore

import (
	"crypto/rand"
	"strconv"
	"strings"
	"sync"
)

// Redis Cluster. A match's own keys share the hash tag {match-id}. The
// indexes shared by matches (deadlines, presence leases, the outbox, the
// live-match index and each player's live matches, create requests) are
// split into Buckets buckets, each of whose keys carries a hash tag
// (bucketTag) chosen to fall in one hash slot, bucketSlot(b); and a new
// match's id is chosen to fall in the slot of its bucket (newID). So every
// script of a match touches keys of one slot, on one primary, whatever the
// cluster's slot map; the buckets' slots are spread evenly over the slot
// space, so over the primaries of a cluster whose slots are split evenly
// (redis-cli --cluster create's ranges: 16 buckets each of 3 primaries,
// 8 each of 6). Readers of an index (the sweeper, the recorder, Live) read
// every bucket.
//
// Matches stored by versions before the buckets have ids in any slot: they
// keep the untagged index keys of those versions (the legacy bucket, -1),
// which every reader still reads on a single Redis (never on a cluster,
// which those versions refused), so a live match finishes after an upgrade
// as it began.

// Buckets is the number of buckets of every index. It fixes where index
// entries are written and read: every instance of a deployment must use
// the same number.
const Buckets = 48

const legacy = -1

const slots = 16384

// crc16 is Redis Cluster's key hash (CRC-16/XMODEM).
func crc16(b []byte) uint16 {
	var crc uint16
	for _, c := range b {
		crc ^= uint16(c) << 8
		for range 8 {
			if crc&0x8000 != 0 {
				crc = crc<<1 ^ 0x1021
			} else {
				crc <<= 1
			}
		}
	}
	return crc
}

// hashSlot is the cluster slot of key: of its hash tag (the text between
// the first '{' and the next '}', when not empty), else of the whole key.
func hashSlot(key string) int {
	if i := strings.IndexByte(key, '{'); i >= 0 {
		if j := strings.IndexByte(key[i+1:], '}'); j > 0 {
			key = key[i+1 : i+1+j]
		}
	}
	return int(crc16([]byte(key)) % slots)
}

// bucketSlot is bucket b's slot: the middle of its share of the slots.
func bucketSlot(b int) int { return (2*b + 1) * slots / (2 * Buckets) }

// bucketTags[b] is a hash tag of bucket b's slot: the smallest decimal
// number that hashes there.
var bucketTags = func() [Buckets]string {
	var tags [Buckets]string
	want := map[int]int{}
	for b := range Buckets {
		want[bucketSlot(b)] = b
	}
	for n := 0; len(want) > 0; n++ {
		s := strconv.Itoa(n)
		if b, ok := want[hashSlot(s)]; ok {
			tags[b] = s
			delete(want, hashSlot(s))
		}
	}
	return tags
}()

// bucketOfID is the bucket of match id: the one whose slot the id hashes
// to, or legacy.
func bucketOfID(id string) int {
	slot := hashSlot(id)
	if b := slot * Buckets / slots; bucketSlot(b) == slot {
		return b
	}
	return legacy
}

// bucketOfRequest is the bucket of a create request id: where its request
// key lives and its match is created.
func bucketOfRequest(requestID string) int {
	return int(crc16([]byte(requestID)) % Buckets)
}

// A new id is rand.Text()'s alphabet: idLen characters, the last
// suffixLen chosen so that the id hashes to the slot wanted. CRC-16 with
// a zero start is linear: crc(M‖S) = crc(M‖000) ⊕ crc(S) for a 3-byte S,
// so S is looked up by the slot bits it must contribute.
const (
	idLen     = 26
	suffixLen = 3
	alphabet  = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"
)

var (
	suffixOnce sync.Once
	suffixes   map[uint16]string // slot bits (14) of crc(S) -> S
)

func suffixTable() map[uint16]string {
	suffixOnce.Do(func() {
		suffixes = make(map[uint16]string, slots)
		var s [suffixLen]byte
		for _, a := range []byte(alphabet) {
			for _, b := range []byte(alphabet) {
				for _, c := range []byte(alphabet) {
					s = [suffixLen]byte{a, b, c}
					v := crc16(s[:]) % slots
					if _, ok := suffixes[v]; !ok {
						suffixes[v] = string(s[:])
					}
				}
			}
		}
	})
	return suffixes
}

// newID returns a random match id in bucket b's slot.
func newID(b int) string {
	table := suffixTable()
	want := uint16(bucketSlot(b))
	for {
		m := rand.Text()[:idLen-suffixLen]
		base := crc16([]byte(m+"\x00\x00\x00")) % slots
		if s, ok := table[base^want]; ok {
			return m + s
		}
	}
}
