package main

import (
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"
)

// The operator's guide states the sizes the manifests set: the match and
// bot HPAs' range and CPU target (and dev's maximum), and HAProxy's
// maxconn, sized from the match HPA's maximum at 2,000 streams a pod. A
// manifest changed without the guide (or the reverse) fails here.
func TestGuideNumbersMatchManifests(t *testing.T) {
	guide, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := os.ReadFile("../../haproxy/haproxy.cfg")
	if err != nil {
		t.Fatal(err)
	}
	g := strings.Join(strings.Fields(string(guide)), " ") // the guide wraps lines anywhere
	hpa := func(overlay, name string) *autoscalingv2.HorizontalPodAutoscaler {
		objs, _, err := Decode(strings.NewReader(render(t, overlay)))
		if err != nil {
			t.Fatal(err)
		}
		h := hpaOf(objs.HPAs, name)
		if h == nil || h.Spec.MinReplicas == nil || len(h.Spec.Metrics) == 0 || h.Spec.Metrics[0].Resource == nil {
			t.Fatalf("%s: no CPU HPA for %s", overlay, name)
		}
		return h
	}
	cpu := func(h *autoscalingv2.HorizontalPodAutoscaler) int32 {
		return *h.Spec.Metrics[0].Resource.Target.AverageUtilization
	}
	match, matchDev, bot := hpa("prod", "match"), hpa("dev", "match"), hpa("prod", "bot")
	want := []string{
		"the HPA scales on CPU (" + strconv.Itoa(int(cpu(match))) + " %), " + strconv.Itoa(int(*match.Spec.MinReplicas)) + "–" +
			strconv.Itoa(int(match.Spec.MaxReplicas)) + " pods (dev " + strconv.Itoa(int(matchDev.Spec.MaxReplicas)) + ")",
		"The HPA scales on CPU, " + strconv.Itoa(int(*bot.Spec.MinReplicas)) + "–" + strconv.Itoa(int(bot.Spec.MaxReplicas)) + " pods",
		"bot (CPU " + strconv.Itoa(int(cpu(bot))) + " %",
	}
	// prod raises match's minimum; the guide gives the base's.
	base := hpa("dev", "match")
	want[0] = strings.Replace(want[0], strconv.Itoa(int(*match.Spec.MinReplicas))+"–", strconv.Itoa(int(*base.Spec.MinReplicas))+"–", 1)
	for _, w := range want {
		if !strings.Contains(g, w) {
			t.Errorf("deploy/README.md does not say %q (the manifests' figures)", w)
		}
	}
	m := regexp.MustCompile(`(?m)^\s*maxconn (\d+)`).FindStringSubmatch(string(cfg))
	if m == nil {
		t.Fatal("haproxy.cfg: no maxconn")
	}
	maxconn, _ := strconv.Atoi(m[1])
	if need := int(match.Spec.MaxReplicas) * 2000; maxconn < need {
		t.Errorf("haproxy.cfg maxconn %d < the match HPA's maximum %d × 2,000 streams", maxconn, match.Spec.MaxReplicas)
	}
	shown := strconv.Itoa(maxconn/1000) + "," + strconv.Itoa(maxconn%1000 + 1000)[1:]
	for _, w := range []string{"`maxconn` " + shown + " client connections", shown + " client connections at once", "the match HPA's " + strconv.Itoa(int(match.Spec.MaxReplicas)) + " pods × 2,000 streams"} {
		if !strings.Contains(g, w) {
			t.Errorf("deploy/README.md does not say %q (haproxy.cfg and the match HPA)", w)
		}
	}
}
