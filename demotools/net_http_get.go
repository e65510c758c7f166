package demotools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"time"

	"github.com/toolexplorer/toolexplorer/tooling"
)

// httpGetTimeout bounds a whole net.http_get call.
const httpGetTimeout = 10 * time.Second

// httpGetHeaders are the response headers net.http_get reports.
var httpGetHeaders = []string{"Content-Type", "Content-Length", "Location", "Server", "Date", "Last-Modified"}

var netHTTPGetInput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "HTTP GET arguments",
  "properties": {
    "url": {
      "type": "string",
      "title": "URL",
      "description": "An http:// URL whose host is an IP address or localhost (names are not resolved), on a port the configuration allows: 80, 8080 or one of confinement.allowed_ports.",
      "format": "uri",
      "pattern": "^http://",
      "examples": ["http://127.0.0.1:8080/"],
      "minLength": 8,
      "maxLength": 2048
    }
  },
  "required": ["url"],
  "additionalProperties": false
}`)

var netHTTPGetOutput = json.RawMessage(`{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "title": "HTTP GET result",
  "properties": {
    "status": {
      "type": "integer",
      "title": "Status",
      "description": "The HTTP status code; redirects are reported, not followed.",
      "minimum": 100,
      "maximum": 999
    },
    "headers": {
      "type": "object",
      "title": "Headers",
      "description": "A few response headers, when present: Content-Type, Content-Length, Location, Server, Date, Last-Modified.",
      "additionalProperties": {"type": "string"}
    },
    "body": {
      "type": "string",
      "title": "Body",
      "description": "The response body as text, at most 64 KiB of it."
    },
    "truncated": {
      "type": "boolean",
      "title": "Truncated",
      "description": "True when the body is longer than the text returned."
    }
  },
  "required": ["status", "headers", "body", "truncated"],
  "additionalProperties": false
}`)

type netHTTPGetResult struct {
	Status    int               `json:"status"`
	Headers   map[string]string `json:"headers"`
	Body      string            `json:"body"`
	Truncated bool              `json:"truncated"`
}

func init() {
	tooling.Register(tooling.Tool{
		Name:        "net.http_get",
		Title:       "HTTP GET",
		Description: "Fetches an http:// URL with a GET request and returns the status, a few headers and the body (cut at 64 KiB); redirects are reported, not followed, and the whole call is bounded by 10 s. The host must be an IP address or localhost: it runs confined, with no name resolution, and may only connect to TCP ports 80, 8080 and those of the config's confinement.allowed_ports.",
		Input:       netHTTPGetInput,
		Output:      netHTTPGetOutput,
		Meta: tooling.Meta{
			Concurrency: tooling.ReadOnly,
			Effects:     tooling.EffectNetwork | tooling.EffectRead,
			Timeout:     httpGetTimeout + 2*time.Second,
			Tags:        []string{"demo", "net", "confined"},
			Version:     "1.0.0",
			// 0: every port of confinement.allowed_ports.
			Confine: &tooling.Confinement{ConnectTCP: []uint16{80, 8080, 0}},
		},
		Run: runNetHTTPGet,
	})
}

// dialAddress returns the address to dial for host:port: an IP literal as
// it is, localhost as 127.0.0.1, and an error for any other name.
func dialAddress(hostport string) (string, error) {
	host, port, err := net.SplitHostPort(hostport)
	if err != nil {
		return "", err
	}
	if host == "localhost" {
		host = "127.0.0.1"
	}
	if net.ParseIP(host) == nil {
		return "", fmt.Errorf("host %q is not an IP address or localhost: net.http_get resolves no names", host)
	}
	return net.JoinHostPort(host, port), nil
}

func runNetHTTPGet(ctx context.Context, c tooling.Call) (any, error) {
	var in struct {
		URL string `json:"url"`
	}
	if err := c.Decode(&in); err != nil {
		return nil, err
	}
	raw := in.URL
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("not a URL: %v", err)
	}
	if u.Scheme != "http" {
		return nil, fmt.Errorf("scheme %q: only http:// URLs are fetched", u.Scheme)
	}
	if u.User != nil {
		return nil, errors.New("URLs with credentials are refused")
	}
	port := u.Port()
	if port == "" {
		port = "80"
	}
	if _, err := dialAddress(net.JoinHostPort(u.Hostname(), port)); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(ctx, httpGetTimeout)
	defer cancel()
	dialer := &net.Dialer{}
	client := &http.Client{
		Transport: &http.Transport{
			Proxy: nil,
			DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
				a, err := dialAddress(addr)
				if err != nil {
					return nil, err
				}
				return dialer.DialContext(ctx, "tcp", a)
			},
			DisableKeepAlives: true,
		},
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxText+1))
	if err != nil {
		return nil, err
	}
	res := netHTTPGetResult{Status: resp.StatusCode, Headers: map[string]string{}}
	res.Body, res.Truncated = cutText(b, maxText)
	for _, h := range httpGetHeaders {
		if v := resp.Header.Get(h); v != "" {
			res.Headers[h] = v
		}
	}
	return res, nil
}
