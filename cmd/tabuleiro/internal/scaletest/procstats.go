package scaletest

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"tabuleiro.dev/cmd/tabuleiro/internal/load"
)

// RSS is the process's resident memory in bytes (0 when not running).
func (p *Proc) RSS() int64 {
	p.mu.Lock()
	cmd := p.cmd
	p.mu.Unlock()
	if cmd == nil || cmd.Process == nil {
		return 0
	}
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb * 1024
		}
	}
	return 0
}

// Switches is the number of context switches (voluntary and not) of the
// process's live threads so far, from /proc/PID/task/*/status: how often
// its threads went to sleep and were woken, or were preempted.
func (p *Proc) Switches() int64 {
	pid := p.Pid()
	if pid == 0 {
		return 0
	}
	tasks, _ := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	var n int64
	for _, t := range tasks {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/status", pid, t.Name()))
		if err != nil {
			continue
		}
		for _, line := range strings.Split(string(b), "\n") {
			if f := strings.Fields(line); len(f) >= 2 && strings.HasSuffix(f[0], "ctxt_switches:") {
				v, _ := strconv.ParseInt(f[1], 10, 64)
				n += v
			}
		}
	}
	return n
}

// Pid is the process id (0 when not running).
func (p *Proc) Pid() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.cmd == nil || p.cmd.Process == nil {
		return 0
	}
	return p.cmd.Process.Pid
}

// CPU returns the processor time (user and system) the process has used
// since it started, from /proc/PID/stat; 0 when it does not run.
func (p *Proc) CPU() time.Duration {
	pid := p.Pid()
	if pid == 0 {
		return 0
	}
	return load.ProcessCPU(strconv.Itoa(pid))
}

// SelfCPU returns the processor time this (test) process has used.
func SelfCPU() time.Duration { return load.ProcessCPU("self") }

// ClusterCPU is the processor time used by each kind of process.
type ClusterCPU struct{ Match, Lobby, Bot, Redis time.Duration }

func (c ClusterCPU) total() time.Duration { return c.Match + c.Lobby + c.Bot + c.Redis }

// CPU returns the processor time used so far by the running processes of
// each kind (a restarted process counts from its restart).
func (c *Cluster) CPU() ClusterCPU {
	var out ClusterCPU
	sum := func(ps []*Proc) (d time.Duration) {
		for _, p := range ps {
			d += p.CPU()
		}
		return d
	}
	out.Match, out.Lobby, out.Bot = sum(c.Match), sum(c.Lobby), sum(c.Bot)
	if c.Redis != nil {
		out.Redis = c.Redis.CPU()
	}
	return out
}
