package main

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/toolexplorer/toolexplorer/config"
	"github.com/toolexplorer/toolexplorer/mcp"
)

// inputEnvPrefix starts the name of the variable a server's ${input:ID}
// is read from: TOOLEXPLORER_INPUT_API_KEY for ${input:api-key}.
const inputEnvPrefix = "TOOLEXPLORER_INPUT_"

// inputEnv is the variable ${input:id} is read from.
func inputEnv(id string) string {
	return inputEnvPrefix + strings.ToUpper(strings.NewReplacer("-", "_", ".", "_", " ", "_").Replace(id))
}

// serverSpec is what connecting to s takes: its config with the variables
// of its command, args, env, url, headers, cwd and oauth client expanded as MCP hosts
// expand them, its envFile read under env, relative paths made relative to
// the config file. Every variable that is not defined is named in the
// error.
//
// The variables: ${NAME} and ${env:NAME}, from the environment (Claude
// Code, Cursor, VS Code, Windsurf); ${NAME:-default} (Claude Code);
// ${userHome}; ${workspaceFolder} and ${workspaceFolderBasename}, the
// directory of the config file, or the one above it when that is .vscode
// or .cursor; ${pathSeparator} and ${/}; ${input:ID} (VS Code), from
// $TOOLEXPLORER_INPUT_ID.
func (a *app) serverSpec(name string, c config.Server) (mcp.Spec, error) {
	x := expander{a: a, base: a.configDir()}
	c.Command = x.expand(c.Command, "command")
	c.Args = slices.Clone(c.Args)
	for i := range c.Args {
		c.Args[i] = x.expand(c.Args[i], fmt.Sprintf("args[%d]", i))
	}
	c.URL = x.expand(c.URL, "url")
	c.Dir = x.expand(c.Dir, "cwd")
	if c.Dir != "" && !filepath.IsAbs(c.Dir) {
		c.Dir = filepath.Join(x.base, c.Dir)
	}
	env := map[string]string{}
	if f := x.expand(c.EnvFile, "envFile"); f != "" {
		if !filepath.IsAbs(f) {
			f = filepath.Join(x.base, f)
		}
		vars, err := readEnvFile(f)
		if err != nil {
			return mcp.Spec{}, fmt.Errorf("server %q: envFile: %v", name, err)
		}
		maps.Copy(env, vars)
	}
	for _, k := range slices.Sorted(maps.Keys(c.Env)) {
		env[k] = x.expand(c.Env[k], "env."+k)
	}
	c.Env = env
	if len(c.Env) == 0 {
		c.Env = nil
	}
	if c.Headers != nil {
		h := map[string]string{}
		for _, k := range slices.Sorted(maps.Keys(c.Headers)) {
			h[k] = x.expand(c.Headers[k], "headers."+k)
		}
		c.Headers = h
	}
	if c.OAuth != nil {
		o := *c.OAuth
		o.ClientID = x.expand(o.ClientID, "oauth.client_id")
		o.ClientSecret = x.expand(o.ClientSecret, "oauth.client_secret")
		c.OAuth = &o
	}
	if len(x.undefined) > 0 {
		return mcp.Spec{}, &undefinedError{server: name, vars: x.undefined, inputs: x.inputs}
	}
	s := mcp.Spec{Command: c.Command, Args: c.Args, Env: c.Env, InheritEnv: c.InheritEnv, URL: c.URL, Headers: c.Headers,
		Confine: c.Confine, MaxRestarts: c.MaxRestarts, Concurrency: c.Concurrency, Exclusive: c.Exclusive, Dir: c.Dir}
	if c.OAuth != nil {
		s.OAuth = a.oauthClient(name, c.URL, c.OAuth)
	}
	return s, nil
}

// undefinedError names the variables of a server's config that are not
// defined, each where it is: "headers.Authorization: ${TOKEN} is not
// defined: $TOKEN is not set".
type undefinedError struct {
	server string
	vars   []string
	// inputs are the IDs of the ${input:ID} among vars, each once.
	inputs []string
}

// onlyInputs reports whether every variable undefined is an input, which
// the console can ask for.
func (e *undefinedError) onlyInputs() bool {
	n := 0
	for _, v := range e.vars {
		if strings.Contains(v, "${input:") {
			n++
		}
	}
	return n == len(e.vars) && len(e.inputs) > 0
}

func (e *undefinedError) Error() string {
	return fmt.Sprintf("server %q is not connected: %s", e.server, strings.Join(e.vars, "; "))
}

// configDir is the directory of the config file, "." without one.
func (a *app) configDir() string {
	if a.configFile == "" {
		return "."
	}
	return filepath.Dir(absPath(a.configFile))
}

// expander expands the variables of one server's config, noting those it
// cannot.
type expander struct {
	a         *app
	base      string
	undefined []string
	inputs    []string // the IDs of the inputs undefined
}

func (x *expander) expand(s, where string) string {
	if !strings.Contains(s, "${") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.Index(s, "${")
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(s[:i])
		v, ok, why := x.value(s[i+2 : i+j])
		if !ok {
			x.undefined = append(x.undefined, fmt.Sprintf("%s: ${%s} %s", where, s[i+2:i+j], why))
			if id, isInput := strings.CutPrefix(s[i+2:i+j], "input:"); isInput && !slices.Contains(x.inputs, id) {
				x.inputs = append(x.inputs, id)
			}
		}
		b.WriteString(v)
		s = s[i+j+1:]
	}
}

// value is the value of the variable expr (what is between ${ and }).
func (x *expander) value(expr string) (string, bool, string) {
	getenv := x.a.getenv
	workspace := x.base
	if b := filepath.Base(workspace); b == ".vscode" || b == ".cursor" {
		workspace = filepath.Dir(workspace)
	}
	switch expr {
	case "userHome":
		if h := getenv("HOME"); h != "" {
			return h, true, ""
		}
		h, err := os.UserHomeDir()
		return h, err == nil, "is not defined: $HOME is not set"
	case "workspaceFolder":
		return workspace, true, ""
	case "workspaceFolderBasename":
		return filepath.Base(workspace), true, ""
	case "pathSeparator", "/":
		return string(filepath.Separator), true, ""
	}
	if id, ok := strings.CutPrefix(expr, "input:"); ok {
		env := inputEnv(id)
		if v := getenv(env); v != "" {
			return v, true, ""
		}
		if v, ok := x.a.consoleInput(id); ok {
			return v, true, ""
		}
		what := "the input " + fmt.Sprintf("%q", id)
		if d := x.a.cfg.Inputs[id].Description; d != "" {
			what += " (" + d + ")"
		}
		return "", false, fmt.Sprintf("is not defined: set $%s to %s", env, what)
	}
	name, def, hasDefault := strings.Cut(expr, ":-")
	name = strings.TrimPrefix(name, "env:")
	if !validEnvName(name) {
		return "", false, "is not a variable toolexplorer knows: use ${NAME}, ${env:NAME}, ${NAME:-default}, ${userHome}, ${workspaceFolder} or ${input:ID}"
	}
	if v := getenv(name); v != "" || (!hasDefault && lookupEnv(x.a, name)) {
		return v, true, ""
	}
	if hasDefault {
		return def, true, ""
	}
	return "", false, fmt.Sprintf("is not defined: $%s is not set", name)
}

// lookupEnv reports whether the variable name is set, empty or not, in
// the environment getenv reads (the process's).
func lookupEnv(a *app, name string) bool {
	if a.getenv(name) != "" {
		return true
	}
	_, ok := os.LookupEnv(name)
	return ok
}

func validEnvName(s string) bool {
	if s == "" || (s[0] >= '0' && s[0] <= '9') {
		return false
	}
	for _, c := range s {
		if !(c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
			return false
		}
	}
	return true
}

// readEnvFile reads a file of NAME=VALUE lines, as Cursor and VS Code read
// a server's envFile: blank lines and lines starting with # are skipped,
// "export " before a name is allowed, and a value in matching quotes loses
// them.
func readEnvFile(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	out := map[string]string{}
	for i, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, value, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		name = strings.TrimSpace(name)
		if !ok || !validEnvName(name) {
			return nil, fmt.Errorf("%s:%d: want NAME=VALUE", path, i+1)
		}
		value = strings.TrimSpace(value)
		if len(value) >= 2 && (value[0] == '"' || value[0] == '\'') && value[len(value)-1] == value[0] {
			value = value[1 : len(value)-1]
		}
		out[name] = value
	}
	return out, nil
}

// consoleInput is the value of the input id that the person at the
// console entered, if they did.
func (a *app) consoleInput(id string) (string, bool) {
	a.inputsMu.Lock()
	defer a.inputsMu.Unlock()
	v, ok := a.inputs[id]
	return v, ok
}

// askInputs asks the person at the console for the inputs of the server
// name's config that are not defined (VS Code's inputs), and keeps their
// answers for the session; it reports whether they gave them all.
func (a *app) askInputs(ctx context.Context, ask asker, name string, ids []string) (bool, error) {
	props := map[string]any{}
	for _, id := range ids {
		p := map[string]any{"type": "string", "title": id}
		in := a.cfg.Inputs[id]
		if in.Description != "" {
			p["description"] = in.Description
		}
		if in.Password {
			p["writeOnly"] = true // a secret: masked as it is typed
		}
		props[id] = p
	}
	schema, err := json.Marshal(map[string]any{"type": "object", "properties": props, "required": ids})
	if err != nil {
		return false, err
	}
	msg := fmt.Sprintf("server %q needs inputs its config asks for (${input:...}): they are kept for this session only; $%s and the like give them on the command line", name, inputEnv(ids[0]))
	got, ok, err := ask.Ask(ctx, name, msg, schema)
	if err != nil || !ok {
		return false, err
	}
	a.inputsMu.Lock()
	defer a.inputsMu.Unlock()
	if a.inputs == nil {
		a.inputs = map[string]string{}
	}
	for _, id := range ids {
		v, _ := got[id].(string)
		if v == "" {
			return false, nil
		}
		a.inputs[id] = v
	}
	return true, nil
}
