package api

import (
	"fmt"
	"regexp"
	"strings"
)

// The reading of docs/walkthrough.md for TestWalkthrough: its blocks of
// commands and of answers, the commands' shell words, and the answers as
// patterns where "…" stands for what the page leaves out.

// pageStep is one block of commands of the page and the answers printed
// after it, one line each, in the commands' order.
type pageStep struct {
	commands []pageCommand
	answers  []string
}

// pageCommand is one command of a block: its line (continuations joined)
// and, for `cat > FILE <<EOF`, the here-document's lines.
type pageCommand struct {
	line    string
	heredoc []string
}

// walkthroughPage is the page split: the setup block's lines (after the
// marker `<!-- walkthrough: setup -->`) and the steps after it.
type walkthroughPage struct {
	setup []string
	steps []pageStep
}

// fence is a fenced block of the page: its info string and its lines.
type fence struct {
	info  string
	lines []string
}

// parseWalkthrough reads the page: the first `sh` block after the setup
// marker is the setup; every later `sh` block is a step, and the fenced
// block that follows it, when it is not an `sh` block, holds its answers.
func parseWalkthrough(page string) (walkthroughPage, error) {
	_, rest, ok := strings.Cut(page, "<!-- walkthrough: setup -->")
	if !ok {
		return walkthroughPage{}, fmt.Errorf("no <!-- walkthrough: setup --> marker")
	}
	fences := fencesOf(rest)
	if len(fences) == 0 || fences[0].info != "sh" {
		return walkthroughPage{}, fmt.Errorf("no sh block after the setup marker")
	}
	p := walkthroughPage{setup: fences[0].lines}
	for i := 1; i < len(fences); i++ {
		if fences[i].info != "sh" {
			return walkthroughPage{}, fmt.Errorf("a %q block follows no sh block: %q", fences[i].info, fences[i].lines)
		}
		cmds, err := commandsOf(fences[i].lines)
		if err != nil {
			return walkthroughPage{}, err
		}
		step := pageStep{commands: cmds}
		if i+1 < len(fences) && fences[i+1].info != "sh" {
			i++
			step.answers = fences[i].lines
		}
		p.steps = append(p.steps, step)
	}
	return p, nil
}

// fencesOf lists the fenced blocks of markdown text.
func fencesOf(text string) []fence {
	var out []fence
	var cur *fence
	for _, l := range strings.Split(text, "\n") {
		switch {
		case cur == nil && strings.HasPrefix(l, "```"):
			cur = &fence{info: strings.TrimPrefix(l, "```")}
		case cur != nil && l == "```":
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			cur.lines = append(cur.lines, l)
		}
	}
	return out
}

// heredocStart is `cat > FILE <<EOF`.
var heredocStart = regexp.MustCompile(`^cat > (\S+) <<EOF$`)

// commandsOf splits a block into commands: blank lines and comments
// skipped, lines ending in a backslash joined to the next, a here-document
// read to its EOF.
func commandsOf(lines []string) ([]pageCommand, error) {
	var out []pageCommand
	for i := 0; i < len(lines); i++ {
		l := strings.TrimSpace(lines[i])
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		for strings.HasSuffix(l, `\`) && i+1 < len(lines) {
			i++
			l = strings.TrimSuffix(l, `\`) + " " + strings.TrimSpace(lines[i])
		}
		cmd := pageCommand{line: l}
		if heredocStart.MatchString(l) {
			for i++; i < len(lines) && lines[i] != "EOF"; i++ {
				cmd.heredoc = append(cmd.heredoc, lines[i])
			}
			if i == len(lines) {
				return nil, fmt.Errorf("%q: the here-document has no EOF", l)
			}
		}
		out = append(out, cmd)
	}
	return out, nil
}

// shellWords splits a command line as a POSIX shell does for the forms the
// page uses: words apart by blanks, 'single' and "double" quotes (\" \\
// \$ escaped in double quotes), $NAME and ${NAME} expanded in double
// quotes and bare words (never in single quotes), a # beginning a word
// starting a comment. A variable not in vars is an error.
func shellWords(line string, vars map[string]string) ([]string, error) {
	var words []string
	var cur strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t':
			if inWord {
				words, inWord = append(words, cur.String()), false
				cur.Reset()
			}
		case c == '#' && !inWord:
			return words, nil
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, fmt.Errorf("%q: unterminated single quote", line)
			}
			cur.WriteString(line[i+1 : i+1+end])
			i, inWord = i+1+end, true
		case c == '"':
			j, err := doubleQuoted(line, i+1, vars, &cur)
			if err != nil {
				return nil, err
			}
			i, inWord = j, true
		case c == '$':
			n, err := expand(line, i, vars, &cur)
			if err != nil {
				return nil, err
			}
			i, inWord = i+n-1, true
		default:
			cur.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, cur.String())
	}
	return words, nil
}

// doubleQuoted writes the double-quoted text starting at line[from] into
// b, expanded, and returns the index of its closing quote.
func doubleQuoted(line string, from int, vars map[string]string, b *strings.Builder) (int, error) {
	for i := from; i < len(line); i++ {
		switch c := line[i]; {
		case c == '"':
			return i, nil
		case c == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`, line[i+1]) >= 0:
			b.WriteByte(line[i+1])
			i++
		case c == '$':
			n, err := expand(line, i, vars, b)
			if err != nil {
				return 0, err
			}
			i += n - 1
		default:
			b.WriteByte(c)
		}
	}
	return 0, fmt.Errorf("%q: unterminated double quote", line)
}

// varRef is $NAME or ${NAME}.
var varRef = regexp.MustCompile(`^\$(?:\{([A-Za-z_][A-Za-z0-9_]*)\}|([A-Za-z_][A-Za-z0-9_]*))`)

// expand writes the value of the variable referred to at line[at] into b
// and returns the length of the reference.
func expand(line string, at int, vars map[string]string, b *strings.Builder) (int, error) {
	m := varRef.FindStringSubmatch(line[at:])
	if m == nil {
		return 0, fmt.Errorf("%q: a $ the test does not expand at %d", line, at)
	}
	name := m[1] + m[2]
	v, ok := vars[name]
	if !ok {
		return 0, fmt.Errorf("%q: $%s is not a variable of the page's setup", line, name)
	}
	b.WriteString(v)
	return len(m[0]), nil
}

// expandHeredoc expands the variables of a here-document's line (an
// unquoted EOF: $NAME and ${NAME}, nothing else is special in the page's).
func expandHeredoc(line string, vars map[string]string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(line); i++ {
		if line[i] != '$' {
			b.WriteByte(line[i])
			continue
		}
		n, err := expand(line, i, vars, &b)
		if err != nil {
			return "", err
		}
		i += n - 1
	}
	return b.String(), nil
}

// answerMismatch says how got differs from an answer the page prints,
// where "…" stands for anything (what the page leaves out); "" when it
// matches: the text before the first "…" begins got, the text after the
// last ends it, and those between come in order.
func answerMismatch(pattern, got string) string {
	parts := strings.Split(pattern, "…")
	if len(parts) == 1 {
		if got != pattern {
			return "the answer differs"
		}
		return ""
	}
	if !strings.HasPrefix(got, parts[0]) {
		return fmt.Sprintf("the answer does not begin with %q", parts[0])
	}
	rest := got[len(parts[0]):]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return fmt.Sprintf("%q is not in the answer (where the page has it)", p)
		}
		rest = rest[i+len(p):]
	}
	if last := parts[len(parts)-1]; !strings.HasSuffix(rest, last) {
		return fmt.Sprintf("the answer does not end with %q", last)
	}
	return ""
}
