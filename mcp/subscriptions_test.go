package mcp_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/toolexplorer/toolexplorer/mcp"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// TestGatewayForwardsSubscriptions: a client's resources/subscribe through
// a gateway subscribes the gateway at the server the resource comes from,
// once for every client that subscribes; the server's
// notifications/resources/updated reaches each subscribed client (one on
// the protocol of before subscriptions/listen, one on it); the last
// unsubscribe ends the gateway's subscription at the server.
func TestGatewayForwardsSubscriptions(t *testing.T) {
	subscribed, unsubscribed := make(chan string, 8), make(chan string, 8)
	up := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(_ context.Context, req *sdk.UnsubscribeRequest) error {
			unsubscribed <- req.Params.URI
			return nil
		}})
	up.AddResource(&sdk.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "v"}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return up }, nil))
	defer ts.Close()

	reg := tooling.NewRegistry()
	r, err := mcp.Connect(context.Background(), reg, "docs", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	gw := mcp.NewServer(reg, mcp.Options{Upstreams: func() []*mcp.Remote { return []*mcp.Remote{r} }})
	defer gw.Detach()
	ctx := context.Background()

	updated := func() (chan string, *sdk.ClientOptions) {
		ch := make(chan string, 8)
		return ch, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
			ch <- req.Params.URI
		}}
	}
	oldUpdates, oldOpts := updated()
	old := connectVersion(t, gw, oldOpts, "2025-11-25")
	if caps := old.InitializeResult().Capabilities; caps.Resources == nil || !caps.Resources.Subscribe {
		t.Fatalf("the gateway does not say it takes subscriptions: %+v", caps.Resources)
	}
	if err := old.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if uri := <-subscribed; uri != "docs://readme" {
		t.Fatalf("the server got a subscription to %q", uri)
	}
	newUpdates, newOpts := updated()
	cur := connect(t, gw, newOpts)
	listening := make(chan error, 1)
	go func() { listening <- cur.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://readme"}) }()

	// An update reaches the first client at once; the second, once its
	// subscription is in (the gateway's forwards all of them).
	if err := up.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if uri := <-oldUpdates; uri != "docs://readme" {
		t.Fatalf("updated %q", uri)
	}
	for got := false; !got; {
		if err := up.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
			t.Fatal(err)
		}
		select {
		case uri := <-newUpdates:
			if uri != "docs://readme" {
				t.Fatalf("updated %q", uri)
			}
			got = true
		case <-oldUpdates: // each update reaches the first client too
		}
	}
	select {
	case uri := <-subscribed:
		t.Fatalf("the server got a second subscription (%q): one is the gateway's for all", uri)
	default:
	}

	// A subscription to what the gateway does not serve is refused.
	if err := old.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://nothing"}); err == nil {
		t.Error("a subscription to a resource not served was taken")
	}

	if err := old.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if err := cur.Unsubscribe(ctx, &sdk.UnsubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if uri := <-unsubscribed; uri != "docs://readme" {
		t.Fatalf("the server got an unsubscription of %q", uri)
	}
	if err := <-listening; err != nil {
		t.Errorf("the second client's subscription: %v", err)
	}
}

// TestGatewayResubscribesAServerThatCameBack: a server the gateway
// subscribed at for its clients stops and comes back as a new connection
// (what restart supervision does); on the refresh that follows, the
// gateway subscribes again at the new connection, tells the subscribed
// client the resource may have changed, and the server's later updates
// reach the client again.
func TestGatewayResubscribesAServerThatCameBack(t *testing.T) {
	subscribed := make(chan string, 8)
	up := sdk.NewServer(&sdk.Implementation{Name: "docs", Version: "1"}, &sdk.ServerOptions{
		SubscribeHandler: func(_ context.Context, req *sdk.SubscribeRequest) error {
			subscribed <- req.Params.URI
			return nil
		},
		UnsubscribeHandler: func(context.Context, *sdk.UnsubscribeRequest) error { return nil }})
	up.AddResource(&sdk.Resource{URI: "docs://readme", Name: "readme", MIMEType: "text/plain"},
		func(_ context.Context, req *sdk.ReadResourceRequest) (*sdk.ReadResourceResult, error) {
			return &sdk.ReadResourceResult{Contents: []*sdk.ResourceContents{{URI: req.Params.URI, Text: "v"}}}, nil
		})
	ts := httptest.NewServer(sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return up }, nil))
	defer ts.Close()

	reg := tooling.NewRegistry()
	ctx := context.Background()
	first, err := mcp.Connect(ctx, reg, "docs", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	current := first
	gw := mcp.NewServer(reg, mcp.Options{Upstreams: func() []*mcp.Remote {
		mu.Lock()
		defer mu.Unlock()
		return []*mcp.Remote{current}
	}})
	defer gw.Detach()

	updates := make(chan string, 8)
	client := connectVersion(t, gw, &sdk.ClientOptions{ResourceUpdatedHandler: func(_ context.Context, req *sdk.ResourceUpdatedNotificationRequest) {
		updates <- req.Params.URI
	}}, "2025-11-25")
	if err := client.Subscribe(ctx, &sdk.SubscribeParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if uri := <-subscribed; uri != "docs://readme" {
		t.Fatalf("the server got a subscription to %q", uri)
	}

	// The server's connection ends; a new one takes its place.
	first.Close()
	gw.Refresh(ctx)
	again, err := mcp.Connect(ctx, reg, "docs", mcp.Spec{URL: ts.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer again.Close()
	mu.Lock()
	current = again
	mu.Unlock()
	gw.Refresh(ctx)

	if uri := within(t, subscribed, "the subscription at the server that came back"); uri != "docs://readme" {
		t.Fatalf("the server got a subscription to %q after it came back", uri)
	}
	if uri := within(t, updates, "the update for the server that came back"); uri != "docs://readme" {
		t.Fatalf("the client was told %q changed", uri)
	}
	if err := up.ResourceUpdated(ctx, &sdk.ResourceUpdatedNotificationParams{URI: "docs://readme"}); err != nil {
		t.Fatal(err)
	}
	if uri := within(t, updates, "the server's update"); uri != "docs://readme" {
		t.Fatalf("an update after the server came back reached the client as %q", uri)
	}
}

// within receives from ch, failing the test when nothing comes for long:
// a deadline generous enough for a loaded machine.
func within(t *testing.T, ch <-chan string, what string) string {
	t.Helper()
	select {
	case v := <-ch:
		return v
	case <-time.After(time.Minute):
		t.Fatalf("%s: nothing came in a minute", what)
		return ""
	}
}
