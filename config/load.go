package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"time"

	"github.com/toolexplorer/toolexplorer/internal/jsonpointer"
	"github.com/toolexplorer/toolexplorer/tooling"
)

// Load reads the config file at path and parses it (see Parse). A file that
// cannot be read gives an *Error whose Err is the cause, so that
// errors.Is(err, fs.ErrNotExist) tells a missing file.
func Load(path string) (Config, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		msg := err.Error()
		var pe *fs.PathError
		if errors.As(err, &pe) {
			msg = "cannot " + pe.Op + ": " + pe.Err.Error()
		}
		return Config{}, Errors{{Source: path, Message: msg, Err: err}}
	}
	return Parse(data, path)
}

// Parse reads a config file's content; source names it in errors and
// becomes Config.Source. It starts from Default() and applies what the file
// sets: an empty file (or white space, or "{}") gives Default().
//
// The file must be one JSON object valid against Schema(), and its
// durations and numbers must fit their Go types. On any problem Parse
// returns the zero Config and an Errors holding every problem found.
func Parse(data []byte, source string) (Config, error) {
	data = bytes.TrimPrefix(data, []byte("\ufeff"))
	cfg := Default()
	cfg.Source = source
	if len(bytes.TrimSpace(data)) == 0 {
		return cfg, nil
	}
	p := &problems{source: source}
	doc, err := decodeDocument(data)
	p.doc = doc
	if err != nil {
		var se *syntaxError
		errors.As(err, &se)
		line, col := doc.lineColumn(se.offset)
		p.list = append(p.list, &Error{Source: source, Message: fmt.Sprintf("invalid JSON at line %d, column %d: %s", line, col, se.msg), Line: line, Column: col})
		return Config{}, p.err()
	}
	cs, err := loadSchema()
	if err != nil {
		return Config{}, Errors{{Source: source, Message: err.Error(), Err: err}}
	}
	for _, at := range doc.dups {
		p.addKey(at, "key given twice")
	}
	hostFile(cs, doc.root)
	p.validateSchema(cs, doc.root)
	if obj, ok := doc.root.(map[string]any); ok {
		p.apply(obj, &cfg)
	}
	if err := p.err(); err != nil {
		return Config{}, err
	}
	if err := cfg.Validate(); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// apply sets in cfg what the file sets. Values of the wrong type were
// reported by the schema and are skipped here; apply reports what only Go
// can tell: durations out of range or not positive, numbers too large.
func (p *problems) apply(obj map[string]any, cfg *Config) {
	if v, ok := obj["enabled"].(bool); ok {
		cfg.Disabled = !v
	}
	if d, ok := p.duration(obj, "default_timeout", "/default_timeout"); ok {
		cfg.DefaultTimeout = d
	}
	if n, ok := p.integer(obj, "max_concurrent", "/max_concurrent", strconv.IntSize); ok {
		cfg.MaxConcurrent = int(n)
	}
	if n, ok := p.integer(obj, "max_argument_bytes", "/max_argument_bytes", 64); ok {
		cfg.MaxArgumentBytes = n
	}
	if n, ok := p.integer(obj, "max_output_bytes", "/max_output_bytes", 64); ok {
		cfg.MaxOutputBytes = n
	}
	if n, ok := p.integer(obj, "max_field_errors", "/max_field_errors", strconv.IntSize); ok {
		cfg.MaxFieldErrors = int(n)
	}
	cfg.Whitelist = stringList(obj["whitelist"])
	cfg.Blacklist = stringList(obj["blacklist"])
	if v, ok := obj["dangerous_tool_confirmation"].(bool); ok {
		cfg.DangerousToolConfirmation = v
	}
	tools, _ := obj["tools"].(map[string]any)
	names := make([]string, 0, len(tools))
	for name := range tools {
		names = append(names, name)
	}
	sort.Strings(names)
	for _, name := range names {
		t, ok := tools[name].(map[string]any)
		if !ok {
			continue
		}
		at := "/tools/" + jsonpointer.Escape(name)
		var o tooling.Override
		if d, ok := p.duration(t, "timeout", at+"/timeout"); ok {
			o.Timeout = d
		}
		if n, ok := t["rate_per_minute"].(json.Number); ok && !p.has(at+"/rate_per_minute") {
			f, err := strconv.ParseFloat(n.String(), 64)
			if err != nil || math.IsInf(f, 0) {
				p.add(at+"/rate_per_minute", "%s is too large", n)
			} else {
				o.Rate.PerMinute = f
			}
		}
		if n, ok := p.integer(t, "burst", at+"/burst", strconv.IntSize); ok {
			o.Rate.Burst = int(n)
		}
		if v, ok := t["disabled"].(bool); ok {
			o.Disabled = v
		}
		if v, ok := t["state"].(string); ok {
			o.State = tooling.State(v)
		}
		o.StateReason, _ = t["reason"].(string)
		o.Replacement, _ = t["replacement"].(string)
		if cfg.Tools == nil {
			cfg.Tools = map[string]tooling.Override{}
		}
		cfg.Tools[name] = o
	}
	if c, ok := obj["confinement"].(map[string]any); ok {
		p.applyConfinement(c, &cfg.Confinement)
	}
	p.applyServers(obj, cfg)
	p.applyServe(obj, cfg)
	p.applyInputs(obj, cfg)
	p.applyAccess(obj, cfg)
	p.applyBudgets(obj, cfg)
	p.applyIdempotency(obj, cfg)
	p.applyLimits(obj, cfg)
	p.applyLedger(obj, cfg)
	p.applyTelemetry(obj, cfg)
	applyEnvironments(obj, cfg)
	if keys, ok := obj["keys"].(map[string]any); ok && len(keys) > 0 {
		cfg.Keys = make(map[string][]string, len(keys))
		for name, v := range keys {
			cfg.Keys[name] = stringList(v)
		}
	}
	for _, f := range stringList(obj["tool_files"]) {
		cfg.ToolFiles = append(cfg.ToolFiles, besideConfig(p.source, f))
	}
	if f, ok := obj["env_file"].(string); ok && f != "" {
		cfg.EnvFile = besideConfig(p.source, f)
	}
	if v, ok := obj["shadow"].(bool); ok {
		cfg.Shadow = v
	}
}

// besideConfig resolves a relative path against the config file's
// directory.
func besideConfig(source, path string) string {
	if source == "" || filepath.IsAbs(path) {
		return path
	}
	return filepath.Join(filepath.Dir(source), path)
}

// duration parses obj[key] when it is a string the schema accepted.
func (p *problems) duration(obj map[string]any, key, at string) (time.Duration, bool) {
	s, ok := obj[key].(string)
	if !ok || p.has(at) {
		return 0, false
	}
	d, err := time.ParseDuration(s)
	switch {
	case err != nil:
		p.add(at, "%q is too long a duration (the most is %s)", s, time.Duration(math.MaxInt64))
		return 0, false
	case d <= 0:
		p.add(at, "must be a positive duration, got %q", s)
		return 0, false
	}
	return d, true
}

// integer reads obj[key] when it is a whole number the schema accepted
// ("1e3" and "10.0" included), refusing one that does not fit in bits.
func (p *problems) integer(obj map[string]any, key, at string, bits int) (int64, bool) {
	return p.integerValue(obj[key], at, bits)
}

// integerValue is integer for a value at pointer at, such as an array's
// element.
func (p *problems) integerValue(v any, at string, bits int) (int64, bool) {
	n, ok := v.(json.Number)
	if !ok || p.has(at) {
		return 0, false
	}
	if i, err := strconv.ParseInt(n.String(), 10, bits); err == nil {
		return i, true
	}
	f, err := strconv.ParseFloat(n.String(), 64)
	if err == nil && f != math.Trunc(f) {
		return 0, false
	}
	if err != nil || math.Abs(f) >= math.Ldexp(1, bits-1) {
		p.add(at, "%s is too large", n)
		return 0, false
	}
	return int64(f), true
}

// stringList returns the strings of a JSON array, nil when there are none.
func stringList(v any) []string {
	arr, _ := v.([]any)
	var out []string
	for _, e := range arr {
		if s, ok := e.(string); ok {
			out = append(out, s)
		}
	}
	return out
}

// applyEnvironments sets the environments of variables; the schema
// checked their shape.
func applyEnvironments(obj map[string]any, cfg *Config) {
	envs, _ := obj["environments"].(map[string]any)
	for name, v := range envs {
		vars, _ := v.(map[string]any)
		e := make(Environment, len(vars))
		for k, x := range vars {
			switch x := x.(type) {
			case string:
				e[k] = Variable{Value: x}
			case map[string]any:
				var va Variable
				va.Value, _ = x["value"].(string)
				va.FromEnv, _ = x["from_env"].(string)
				va.Secret, _ = x["secret"].(bool)
				e[k] = va
			}
		}
		if cfg.Environments == nil {
			cfg.Environments = map[string]Environment{}
		}
		cfg.Environments[name] = e
	}
}
