package bindings

// source is an opened source of any kind: what a kind's openX returns.
type source interface{ close() error }

// kind opens the sources and compiles the bindings of one kind of binding,
// adapting its openX and compileX to the loader.
type kind struct {
	// writes says, for messages, what makes a binding of this kind a write.
	writes string
	// open opens a source; env resolves the ${NAME} references that are
	// resolved when the file loads (an HTTP source's base_url).
	open    func(name string, s *SourceSpec, env Env) (source, error)
	compile func(b *BindingSpec, src source, in Input) (binding, error)
}

// kinds are the kinds of binding this build has, by name. A tools file
// that uses another kind is refused when it loads.
var kinds = map[string]kind{
	"http": {
		writes: "an HTTP method other than GET, HEAD or OPTIONS",
		open: func(name string, s *SourceSpec, env Env) (source, error) {
			h, err := expandBaseURL(s.HTTP, env)
			if err != nil {
				return nil, err
			}
			return openHTTP(name, h)
		},
		compile: func(b *BindingSpec, src source, in Input) (binding, error) {
			return compileHTTP(b.HTTP, src.(*httpSource), in)
		},
	},
	"sql": {
		writes: "a statement that is not read_only",
		open:   func(name string, s *SourceSpec, _ Env) (source, error) { return openSQL(name, s.SQL) },
		compile: func(b *BindingSpec, src source, in Input) (binding, error) {
			return compileSQL(b.SQL, src.(*sqlSource), in)
		},
	},
	"queue": {
		writes: "a publish",
		open:   func(name string, s *SourceSpec, _ Env) (source, error) { return openQueue(name, s.Queue) },
		compile: func(b *BindingSpec, src source, in Input) (binding, error) {
			return compileQueue(b.Queue, src.(*queueSource), in)
		},
	},
}

// kindNames are the names of every kind a tools file may use, in the order
// messages list them.
var kindNames = []string{"http", "sql", "queue"}
