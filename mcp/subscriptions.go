package mcp

import (
	"context"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/yosida95/uritemplate/v3"
)

// subscription is a resource a gateway's clients subscribed to: the
// gateway subscribed to it at the server it comes from, once for all of
// them.
type subscription struct {
	from     *Remote
	sessions map[*sdk.ServerSession]bool
}

// subscribe answers a client's resources/subscribe: the first subscriber
// of a resource has the gateway subscribe to it at its server, whose
// updates then reach every subscriber (the SDK's ResourceUpdated).
func (s *Server) subscribe(ctx context.Context, req *sdk.SubscribeRequest) error {
	uri := req.Params.URI
	s.mu.Lock()
	r := s.resourceFrom(uri)
	s.mu.Unlock()
	if r == nil {
		return sdk.ResourceNotFoundError(uri)
	}
	if !r.subscribable() {
		return fmt.Errorf("the server %q does not take subscriptions to its resources", r.name)
	}
	s.subsMu.Lock()
	if s.subs == nil {
		s.subs = map[string]*subscription{}
	}
	sub := s.subs[uri]
	first := sub == nil || sub.from != r // none yet, or at a server since gone
	if first {
		sub = &subscription{from: r, sessions: map[*sdk.ServerSession]bool{}}
		s.subs[uri] = sub
	}
	sub.sessions[req.Session] = true
	s.subsMu.Unlock()
	if !first {
		return nil
	}
	r.followUpdates(s, s.resourceUpdated)
	if err := r.subscribe(ctx, uri); err != nil {
		s.subsMu.Lock()
		if s.subs[uri] == sub {
			delete(s.subs, uri)
		}
		s.subsMu.Unlock()
		return err
	}
	return nil
}

// unsubscribe answers a client's resources/unsubscribe: the last
// subscriber gone, the gateway unsubscribes at the server.
func (s *Server) unsubscribe(ctx context.Context, req *sdk.UnsubscribeRequest) error {
	uri := req.Params.URI
	s.subsMu.Lock()
	sub := s.subs[uri]
	if sub == nil {
		s.subsMu.Unlock()
		return nil
	}
	delete(sub.sessions, req.Session)
	last := len(sub.sessions) == 0
	if last {
		delete(s.subs, uri)
	}
	s.subsMu.Unlock()
	if !last {
		return nil
	}
	return sub.from.unsubscribe(ctx, uri)
}

// resubscribe moves the clients' subscriptions to resources whose server
// came back (a restarted server is a new connection, which knows nothing
// of the gateway's subscriptions) or which another server now serves: the
// gateway subscribes again at the server that serves the resource now,
// and tells the subscribed clients the resource was updated, since it may
// have changed while its server was down. A subscription to a resource no
// server serves now is kept, to be moved when one does. s.mu is held.
func (s *Server) resubscribe() {
	s.subsMu.Lock()
	defer s.subsMu.Unlock()
	for uri, sub := range s.subs {
		r := s.resourceFrom(uri)
		if r == nil || r == sub.from || r.Err() != nil || !r.subscribable() {
			continue
		}
		sub.from = r
		r.followUpdates(s, s.resourceUpdated)
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), ConnectTimeout)
			defer cancel()
			if r.subscribe(ctx, uri) == nil {
				s.resourceUpdated(uri)
			}
		}()
	}
}

// resourceUpdated passes a server's notifications/resources/updated on to
// the clients subscribed to the resource.
func (s *Server) resourceUpdated(uri string) {
	s.subsMu.Lock()
	_, ok := s.subs[uri]
	s.subsMu.Unlock()
	if ok {
		_ = s.srv.ResourceUpdated(context.Background(), &sdk.ResourceUpdatedNotificationParams{URI: uri})
	}
}

// resourceFrom is the server a resource served comes from, by its URI or
// one of the resource templates served; nil when none is served. s.mu is
// held.
func (s *Server) resourceFrom(uri string) *Remote {
	if r, ok := s.extras.resources[uri]; ok {
		return r.from
	}
	for t, r := range s.extras.templates {
		if tm, err := uritemplate.New(t); err == nil && tm.Regexp().MatchString(uri) {
			return r.from
		}
	}
	return nil
}
