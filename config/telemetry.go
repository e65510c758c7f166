package config

import "time"

// Telemetry configures the OpenTelemetry spans and metrics of the calls
// (the "telemetry" key).
type Telemetry struct {
	// OTLP exports traces and metrics to an OpenTelemetry collector over
	// OTLP/HTTP. Nil: no export (serve --metrics still serves /metrics).
	OTLP *OTLP
	// Content records each call's arguments and output on its span.
	// Default false: never, since they may hold personal data and secrets.
	Content bool
	// Subject records the principal's subject on each call's span.
	// Default false: only the tenant.
	Subject bool
}

// OTLP is where traces and metrics are exported over OTLP/HTTP.
type OTLP struct {
	// Endpoint is the collector's base URL ("http://collector:4318"):
	// traces go to /v1/traces, metrics to /v1/metrics under it.
	Endpoint string
	// Headers are sent with every export (an API key of a hosted
	// collector). Nil: none.
	Headers map[string]string
	// Interval is how often metrics are exported. Zero: 60s.
	Interval time.Duration
}

// State configures the state the calls share across replicas (the "state"
// key): rate limits and budgets. Zero: each process keeps its own.
type State struct {
	// Redis keeps the shared state on a Redis server. Nil: none.
	Redis *Redis
}

// Redis is the Redis server of the shared state.
type Redis struct {
	// Addr is host:port.
	Addr string
	// Username and Password authenticate, when the server asks. Zero: none.
	Username, Password string
	// DB is the database number. Zero: 0.
	DB int
	// Prefix starts every key, so that several deployments share a server.
	// Zero: "toolexplorer".
	Prefix string
	// Timeout bounds each decision's round trip. Zero: 100ms.
	Timeout time.Duration
	// FailOpen, when Redis cannot be reached in time, falls back to each
	// process's own limits, with a warning; default false: the call is
	// refused with code unavailable, naming Redis.
	FailOpen bool
}

// applyTelemetry reads the "telemetry" and "state" sections, which the
// schema checked.
func (p *problems) applyTelemetry(obj map[string]any, cfg *Config) {
	if t, ok := obj["telemetry"].(map[string]any); ok {
		cfg.Telemetry.Content, _ = t["content"].(bool)
		cfg.Telemetry.Subject, _ = t["subject"].(bool)
		if o, ok := t["otlp"].(map[string]any); ok {
			out := &OTLP{}
			out.Endpoint, _ = o["endpoint"].(string)
			if h, ok := o["headers"].(map[string]any); ok {
				out.Headers = make(map[string]string, len(h))
				for k, v := range h {
					out.Headers[k], _ = v.(string)
				}
			}
			if d, ok := p.duration(o, "interval", "/telemetry/otlp/interval"); ok {
				out.Interval = d
			}
			cfg.Telemetry.OTLP = out
		}
	}
	s, _ := obj["state"].(map[string]any)
	if r, ok := s["redis"].(map[string]any); ok {
		out := &Redis{}
		out.Addr, _ = r["addr"].(string)
		out.Username, _ = r["username"].(string)
		out.Password, _ = r["password"].(string)
		out.Prefix, _ = r["prefix"].(string)
		out.DB = int(intOf(r["db"]))
		out.FailOpen = r["on_failure"] == "local"
		if d, ok := p.duration(r, "timeout", "/state/redis/timeout"); ok {
			out.Timeout = d
		}
		cfg.State.Redis = out
	}
}
