package clientaddr_test

import (
	"context"
	"net"
	"testing"

	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"

	"tabuleiro.dev/pkg/platform/clientaddr"
)

// Each spelling of a peer and of X-Forwarded-For entries, behind the
// trusted proxies 10.0.0.0/8, 127.0.0.1 and 2001:db8:ff::1.
func TestResolve(t *testing.T) {
	t.Parallel()
	trusted, err := clientaddr.ParsePrefixes("10.0.0.0/8, 127.0.0.1, 2001:db8:ff::1")
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		peer string
		xff  []string
		want clientaddr.Client
	}{
		{"untrusted IPv4 peer", "192.0.2.7:5000", nil, clientaddr.Client{Key: "192.0.2.7"}},
		{"untrusted peer's header ignored", "198.51.100.7:1", []string{"1.2.3.4"}, clientaddr.Client{Key: "198.51.100.7"}},
		{"untrusted loopback peer", "127.0.0.2:1", []string{"198.51.100.9"}, clientaddr.Client{Key: "127.0.0.2", Loopback: true}},
		{"IPv6 peer by /64", "[2001:db8::1]:5000", nil, clientaddr.Client{Key: "2001:db8::/64"}},
		{"IPv6 peer same /64", "[2001:db8::ffff:1]:1", nil, clientaddr.Client{Key: "2001:db8::/64"}},
		{"IPv4-mapped peer", "[::ffff:192.0.2.9]:443", nil, clientaddr.Client{Key: "192.0.2.9"}},
		{"IPv6 loopback peer", "[::1]:443", nil, clientaddr.Client{Key: "::/64", Loopback: true}},
		{"non-IP peer", "bufconn", nil, clientaddr.Client{Key: "bufconn"}},
		{"trusted proxy, one hop", "10.1.2.3:1", []string{"198.51.100.9"}, clientaddr.Client{Key: "198.51.100.9"}},
		{"forged left entry ignored", "10.1.2.3:1", []string{"6.6.6.6, 198.51.100.9, 10.0.0.5"}, clientaddr.Client{Key: "198.51.100.9"}},
		{"hops in two header values", "10.1.2.3:1", []string{"6.6.6.6", "198.51.100.9, 10.0.0.5"}, clientaddr.Client{Key: "198.51.100.9"}},
		{"trusted proxy, no header", "127.0.0.1:1", nil, clientaddr.Client{Key: "127.0.0.1", Loopback: true}},
		{"trusted proxy, empty entries", "127.0.0.1:1", []string{" , 198.51.100.9 , "}, clientaddr.Client{Key: "198.51.100.9"}},
		{"IPv4 with port", "127.0.0.1:1", []string{"203.0.113.201:5555"}, clientaddr.Client{Key: "203.0.113.201"}},
		{"IPv6 in brackets", "127.0.0.1:1", []string{"[2001:db8::1]"}, clientaddr.Client{Key: "2001:db8::/64"}},
		{"IPv6 in brackets with port", "127.0.0.1:1", []string{"[2001:db8::1]:443"}, clientaddr.Client{Key: "2001:db8::/64"}},
		{"bare IPv6", "127.0.0.1:1", []string{"2001:db8:1:2:3::9"}, clientaddr.Client{Key: "2001:db8:1:2::/64"}},
		{"IPv6 with zone", "127.0.0.1:1", []string{"fe80::1%eth0"}, clientaddr.Client{Key: "fe80::/64"}},
		{"IPv4-mapped entry", "127.0.0.1:1", []string{"::ffff:203.0.113.5"}, clientaddr.Client{Key: "203.0.113.5"}},
		{"trusted IPv6 proxy hop", "[2001:db8:ff::1]:9", []string{"203.0.113.5, 2001:db8:ff::1"}, clientaddr.Client{Key: "203.0.113.5"}},
		{"garbage", "127.0.0.1:1", []string{"garbage"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"unknown (nginx)", "127.0.0.1:1", []string{"unknown"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"garbage right of a real client", "127.0.0.1:1", []string{"198.51.100.9, garbage"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"garbage behind a trusted hop", "127.0.0.1:1", []string{"garbage, 10.0.0.5"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"unclosed bracket", "127.0.0.1:1", []string{"[2001:db8::1"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"port alone", "127.0.0.1:1", []string{":5555"}, clientaddr.Client{Key: clientaddr.Unparsed}},
		{"all hops trusted", "10.1.2.3:1", []string{"10.9.9.9, 10.0.0.5"}, clientaddr.Client{Key: "10.9.9.9"}},
		{"loopback client through the proxy", "127.0.0.1:1", []string{"127.0.0.1"}, clientaddr.Client{Key: "127.0.0.1", Loopback: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := clientaddr.Resolve(tt.peer, tt.xff, trusted); got != tt.want {
				t.Errorf("Resolve(%q, %q) = %+v, want %+v", tt.peer, tt.xff, got, tt.want)
			}
		})
	}
}

// FromContext reads the peer and the x-forwarded-for metadata of a call.
func TestFromContext(t *testing.T) {
	t.Parallel()
	trusted, err := clientaddr.ParsePrefixes("127.0.0.1")
	if err != nil {
		t.Fatal(err)
	}
	ctx := peer.NewContext(t.Context(), &peer.Peer{Addr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 4}})
	ctx = metadata.NewIncomingContext(ctx, metadata.Pairs("X-Forwarded-For", "203.0.113.201:5555"))
	if got, want := clientaddr.FromContext(ctx, trusted), (clientaddr.Client{Key: "203.0.113.201"}); got != want {
		t.Errorf("FromContext = %+v, want %+v", got, want)
	}
	if got := clientaddr.FromContext(context.Background(), trusted); got != (clientaddr.Client{}) {
		t.Errorf("no peer: %+v", got)
	}
}

func TestParsePrefixes(t *testing.T) {
	t.Parallel()
	tests := []struct {
		give    string
		want    string
		wantErr bool
	}{
		{give: "127.0.0.1", want: "[127.0.0.1/32]"},
		{give: "10.1.2.3/8, ::1", want: "[10.0.0.0/8 ::1/128]"},
		{give: "::ffff:10.0.0.1", want: "[10.0.0.1/32]"},
		{give: "", want: "[]"},
		{give: "10.0.0.0/33", wantErr: true},
		{give: "proxy.example", wantErr: true},
	}
	for _, tt := range tests {
		got, err := clientaddr.ParsePrefixes(tt.give)
		if tt.wantErr {
			if err == nil {
				t.Errorf("ParsePrefixes(%q) = %v, want an error", tt.give, got)
			}
			continue
		}
		if err != nil {
			t.Errorf("ParsePrefixes(%q): %v", tt.give, err)
			continue
		}
		if s := fmtPrefixes(got); s != tt.want {
			t.Errorf("ParsePrefixes(%q) = %s, want %s", tt.give, s, tt.want)
		}
	}
}

func fmtPrefixes[T interface{ String() string }](ps []T) string {
	s := "["
	for i, p := range ps {
		if i > 0 {
			s += " "
		}
		s += p.String()
	}
	return s + "]"
}
