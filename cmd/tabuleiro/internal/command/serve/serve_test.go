package serve

import (
	"net/netip"
	"slices"
	"testing"
)

func TestParseProxies(t *testing.T) {
	t.Parallel()
	got, err := parseProxies([]string{"127.0.0.1", " 10.1.2.3/8 ", "::1", "::ffff:192.0.2.1"})
	want := []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32"), netip.MustParsePrefix("10.0.0.0/8"),
		netip.MustParsePrefix("::1/128"), netip.MustParsePrefix("192.0.2.1/32")}
	if err != nil || !slices.Equal(got, want) {
		t.Errorf("parseProxies = %v, %v; want %v", got, err, want)
	}
	for _, bad := range []string{"", "nope", "10.0.0.0/99"} {
		if _, err := parseProxies([]string{bad}); err == nil {
			t.Errorf("parseProxies(%q) accepted", bad)
		}
	}
}
