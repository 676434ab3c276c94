// Command httpprobe is a static health check for images without a shell
// (the OpenTelemetry Collector's): it GETs a URL and exits 0 on a 2xx status,
// 1 otherwise.
//
//	httpprobe [-timeout 2s] http://127.0.0.1:13133/
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"time"
)

func main() {
	timeout := flag.Duration("timeout", 2*time.Second, "request timeout")
	flag.Parse()
	if flag.NArg() != 1 {
		fmt.Fprintln(os.Stderr, "usage: httpprobe [-timeout d] URL")
		os.Exit(2)
	}
	if err := probe(context.Background(), flag.Arg(0), *timeout); err != nil {
		fmt.Fprintln(os.Stderr, "httpprobe:", err)
		os.Exit(1)
	}
}

func probe(ctx context.Context, url string, timeout time.Duration) error {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return fmt.Errorf("%s: status %s", url, resp.Status)
	}
	return nil
}
