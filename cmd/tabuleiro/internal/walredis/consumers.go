package walredis

import (
	"bufio"
	"bytes"
	"strings"
	"sync"
	"time"

	"github.com/alicebob/miniredis/v2/server"
)

// consumers remembers when each stream consumer last tried to read
// (XREADGROUP, XCLAIM, XAUTOCLAIM), which miniredis does not record for
// XREADGROUP: XINFO CONSUMERS reports it as "idle" and "inactive", so that
// a service can prune the consumers of stopped instances as on Redis.
type consumers struct {
	mu   sync.Mutex
	seen map[string]time.Time // key NUL group NUL consumer
}

func consumerID(key, group, consumer string) string { return key + "\x00" + group + "\x00" + consumer }

// saw notes a consumer command's consumers.
func (cs *consumers) saw(cmd string, args []string, now time.Time) {
	var ids []string
	switch cmd {
	case "XREADGROUP":
		// XREADGROUP GROUP g c [COUNT n] [BLOCK ms] [NOACK] STREAMS k… id…
		if len(args) < 3 || !strings.EqualFold(args[0], "GROUP") {
			return
		}
		for i := 3; i < len(args); i++ {
			if strings.EqualFold(args[i], "STREAMS") {
				keys := args[i+1:]
				for _, k := range keys[:len(keys)/2] {
					ids = append(ids, consumerID(k, args[1], args[2]))
				}
				break
			}
		}
	case "XCLAIM", "XAUTOCLAIM":
		if len(args) >= 3 {
			ids = append(ids, consumerID(args[0], args[1], args[2]))
		}
	case "XGROUP":
		// DELCONSUMER key group consumer, DESTROY key group.
		if len(args) >= 4 && strings.EqualFold(args[0], "DELCONSUMER") {
			cs.mu.Lock()
			delete(cs.seen, consumerID(args[1], args[2], args[3]))
			cs.mu.Unlock()
		}
		return
	default:
		return
	}
	cs.mu.Lock()
	if cs.seen == nil {
		cs.seen = map[string]time.Time{}
	}
	for _, id := range ids {
		cs.seen[id] = now
	}
	cs.mu.Unlock()
}

// xinfoConsumers answers XINFO CONSUMERS key group: miniredis's reply,
// with idle and inactive counted from the consumers' last reads.
func (s *Store) xinfoConsumers(p *server.Peer, args []string) bool {
	if len(args) != 3 || !strings.EqualFold(args[0], "CONSUMERS") {
		return false
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	q := server.NewPeer(w)
	s.pmu.Lock()
	s.peers[q] = &peerState{internal: true}
	s.pmu.Unlock()
	s.srv.Dispatch(q, []string{"XINFO", "CONSUMERS", args[1], args[2]})
	s.pmu.Lock()
	delete(s.peers, q)
	s.pmu.Unlock()
	_ = w.Flush()
	reply, err := server.ParseReply(bufio.NewReader(&buf))
	list, ok := reply.([]interface{})
	if err != nil || !ok {
		return false // an error: let miniredis give it
	}
	now := time.Now()
	p.WriteLen(len(list))
	for _, c := range list {
		fields, _ := c.([]interface{})
		var name string
		var pending int
		for i := 0; i+1 < len(fields); i += 2 {
			k, _ := fields[i].(string)
			switch k {
			case "name":
				name, _ = fields[i+1].(string)
			case "pending":
				switch v := fields[i+1].(type) {
				case int:
					pending = v
				case int64:
					pending = int(v)
				}
			}
		}
		idle := -1
		s.consumers.mu.Lock()
		if t, ok := s.consumers.seen[consumerID(args[1], args[2], name)]; ok {
			idle = int(now.Sub(t).Milliseconds())
		}
		s.consumers.mu.Unlock()
		p.WriteMapLen(4)
		p.WriteBulk("name")
		p.WriteBulk(name)
		p.WriteBulk("pending")
		p.WriteInt(pending)
		p.WriteBulk("idle")
		p.WriteInt(idle)
		p.WriteBulk("inactive")
		p.WriteInt(idle)
	}
	return true
}
