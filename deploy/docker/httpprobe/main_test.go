package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

func TestProbe(t *testing.T) {
	tests := []struct {
		name   string
		status int
		ok     bool
	}{
		{"healthy", http.StatusOK, true},
		{"no content", http.StatusNoContent, true},
		{"unavailable", http.StatusServiceUnavailable, false},
		{"not found", http.StatusNotFound, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { w.WriteHeader(tt.status) }))
			defer srv.Close()
			err := probe(context.Background(), srv.URL, time.Second)
			if (err == nil) != tt.ok {
				t.Fatalf("probe(status %d) = %v, want ok=%v", tt.status, err, tt.ok)
			}
		})
	}
}

func TestProbeUnreachable(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	if err := probe(context.Background(), url, time.Second); err == nil {
		t.Fatal("probe of a closed server succeeded")
	}
}
