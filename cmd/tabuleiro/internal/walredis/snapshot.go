package walredis

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"math"
	"os"
	"path/filepath"
	"sort"
)

// A snapshot: the magic line, uvarint LSN (the last log entry it
// includes), then one record per key (type byte, key, varint deadline in
// Unix nanoseconds or 0, the value), then the end byte, uvarint number
// of keys and the CRC-32C of everything before it (4 bytes).
const snapMagic = "tabuleiro embedded redis snapshot 1\n"

const (
	tString byte = 1 + iota
	tList
	tSet
	tHash
	tZSet
	tStream
	tEnd byte = 0xff
)

// writeSnapshot dumps every key into dir/snapshot-<lsn>.snap, through a
// temporary file that is fsync'd and renamed, and returns its size.
func (s *Store) writeSnapshot(ctx context.Context, dir string, lsn int64) (int64, error) {
	final := filepath.Join(dir, snapName(lsn))
	tmp := final + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o600)
	if err != nil {
		return 0, err
	}
	ok := false
	defer func() {
		if !ok {
			_ = f.Close()
			_ = os.Remove(tmp)
		}
	}()
	bw := bufio.NewWriterSize(f, 1<<20)
	crc := crc32.New(crcTable)
	w := io.MultiWriter(bw, crc)
	var b []byte
	b = append(b, snapMagic...)
	b = appendUvarint(b, uint64(lsn))
	var count uint64
	for i, k := range s.m.Keys() {
		if i%1024 == 0 {
			select {
			case <-s.stop:
				return 0, errStopped
			case <-ctx.Done():
				return 0, ctx.Err()
			default:
			}
		}
		var err error
		var wrote bool
		b, wrote, err = s.appendKey(b, k)
		if err != nil {
			return 0, fmt.Errorf("snapshot key %q: %w", k, err)
		}
		if wrote {
			count++
		}
		if len(b) > 64<<10 {
			if _, err := w.Write(b); err != nil {
				return 0, err
			}
			b = b[:0]
		}
	}
	b = append(b, tEnd)
	b = appendUvarint(b, count)
	if _, err := w.Write(b); err != nil {
		return 0, err
	}
	var sum [4]byte
	binary.LittleEndian.PutUint32(sum[:], crc.Sum32())
	if _, err := bw.Write(sum[:]); err != nil {
		return 0, err
	}
	if err := bw.Flush(); err != nil {
		return 0, err
	}
	if err := f.Sync(); err != nil {
		return 0, err
	}
	st, err := f.Stat()
	if err != nil {
		return 0, err
	}
	if err := f.Close(); err != nil {
		return 0, err
	}
	if err := os.Rename(tmp, final); err != nil {
		return 0, err
	}
	ok = true
	return st.Size(), syncDir(dir)
}

// appendKey encodes key k; wrote is false for a key that holds nothing
// to keep (an empty stream).
func (s *Store) appendKey(b []byte, k string) (_ []byte, wrote bool, err error) {
	var deadline int64
	if s.m.TTL(k) == marker {
		deadline, _ = s.exp.get(k)
	}
	head := func(t byte) {
		b = append(b, t)
		b = appendString(b, k)
		b = binary.AppendVarint(b, deadline)
	}
	switch typ := s.m.Type(k); typ {
	case "string":
		v, err := s.m.Get(k)
		if err != nil {
			return b, false, err
		}
		head(tString)
		b = appendString(b, v)
	case "list":
		l, err := s.m.List(k)
		if err != nil {
			return b, false, err
		}
		head(tList)
		b = appendUvarint(b, uint64(len(l)))
		for _, v := range l {
			b = appendString(b, v)
		}
	case "set":
		l, err := s.m.Members(k)
		if err != nil {
			return b, false, err
		}
		head(tSet)
		b = appendUvarint(b, uint64(len(l)))
		for _, v := range l {
			b = appendString(b, v)
		}
	case "hash":
		fields, err := s.m.HKeys(k)
		if err != nil {
			return b, false, err
		}
		head(tHash)
		b = appendUvarint(b, uint64(len(fields)))
		for _, f := range fields {
			b = appendString(b, f)
			b = appendString(b, s.m.HGet(k, f))
		}
	case "zset":
		// The private store of a compaction has no other writer: the
		// map SortedSet returns is not changing under it.
		zs, err := s.m.SortedSet(k)
		if err != nil {
			return b, false, err
		}
		members := make([]string, 0, len(zs))
		for m := range zs {
			members = append(members, m)
		}
		sort.Strings(members)
		head(tZSet)
		b = appendUvarint(b, uint64(len(members)))
		for _, m := range members {
			b = appendString(b, m)
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(zs[m]))
		}
	case "stream":
		es, err := s.m.Stream(k)
		if err != nil {
			return b, false, err
		}
		if len(es) == 0 {
			return b, false, nil
		}
		head(tStream)
		b = appendUvarint(b, uint64(len(es)))
		for _, e := range es {
			b = appendString(b, e.ID)
			b = appendUvarint(b, uint64(len(e.Values)))
			for _, v := range e.Values {
				b = appendString(b, v)
			}
		}
	default:
		return b, false, fmt.Errorf("type %q cannot be kept", typ)
	}
	return b, true, nil
}

// loadSnapshot restores a snapshot into an empty store and returns its
// size.
func (s *Store) loadSnapshot(path string) (int64, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	name := filepath.Base(path)
	if len(raw) < len(snapMagic)+4 || string(raw[:len(snapMagic)]) != snapMagic {
		return 0, fmt.Errorf("%s: not a snapshot", name)
	}
	body, sum := raw[:len(raw)-4], binary.LittleEndian.Uint32(raw[len(raw)-4:])
	if crc32.Checksum(body, crcTable) != sum {
		return 0, fmt.Errorf("%s: checksum mismatch", name)
	}
	d := &decoder{p: body[len(snapMagic):]}
	d.uvarint() // the LSN, also in the name
	var count uint64
	for d.err == nil {
		t := d.byte()
		if t == tEnd {
			if n := d.uvarint(); d.err == nil && n != count {
				return 0, fmt.Errorf("%s: %d keys, %d announced", name, count, n)
			}
			break
		}
		k := d.string()
		deadline := d.varint()
		switch t {
		case tString:
			err = s.m.Set(k, d.string())
		case tList, tSet:
			n := d.count(1)
			vs := make([]string, 0, n)
			for i := 0; i < n && d.err == nil; i++ {
				vs = append(vs, d.string())
			}
			if t == tList {
				_, err = s.m.Push(k, vs...)
			} else {
				_, err = s.m.SetAdd(k, vs...)
			}
		case tHash:
			n := d.count(2)
			fv := make([]string, 0, 2*n)
			for i := 0; i < n && d.err == nil; i++ {
				fv = append(fv, d.string(), d.string())
			}
			if d.err == nil {
				s.m.HSet(k, fv...)
			}
		case tZSet:
			n := d.count(9)
			for i := 0; i < n && d.err == nil; i++ {
				m := d.string()
				if len(d.p) < 8 {
					d.err = errTorn
					break
				}
				score := math.Float64frombits(binary.LittleEndian.Uint64(d.p))
				d.p = d.p[8:]
				if _, err = s.m.ZAdd(k, score, m); err != nil {
					break
				}
			}
		case tStream:
			n := d.count(2)
			for i := 0; i < n && d.err == nil && err == nil; i++ {
				id := d.string()
				nv := d.count(1)
				vs := make([]string, 0, nv)
				for j := 0; j < nv && d.err == nil; j++ {
					vs = append(vs, d.string())
				}
				if d.err == nil {
					_, err = s.m.XAdd(k, id, vs)
				}
			}
		default:
			return 0, fmt.Errorf("%s: unknown record type %d", name, t)
		}
		if err != nil {
			return 0, fmt.Errorf("%s: key %q: %w", name, k, err)
		}
		if d.err == nil && deadline != 0 {
			s.m.SetTTL(k, marker)
			s.exp.set(k, deadline)
		}
		count++
	}
	if d.err != nil {
		return 0, fmt.Errorf("%s: %w", name, errors.Join(d.err, errors.New("damaged")))
	}
	return int64(len(raw)), nil
}
