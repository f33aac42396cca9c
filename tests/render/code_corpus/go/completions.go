// Package complete suggests the words a command line may continue with.
package complete

import (
	"fmt"
	"sort"
	"strings"
)

// Completion is one suggestion, optionally followed by a tab and its description.
type Completion = string

// Directive tells the shell what to do with the completions.
type Directive int

const (
	DirectiveDefault Directive = 0
	DirectiveNoSpace Directive = 1 << iota
	DirectiveNoFileComp
)

type (
	// Func completes the arguments of one command.
	Func func(args []string, toComplete string) ([]Completion, Directive)

	// Command is what completion knows of a command.
	Command struct {
		Name     string
		Aliases  []string
		Complete Func
		children []*Command
	}

	// Finder looks a command up by its path.
	Finder interface {
		Find(path []string) (*Command, error)
	}

	flagName = string
)

// Set is a set of comparable values.
type Set[T comparable] struct {
	items map[T]struct{}
}

// NewSet makes a set holding the given values.
func NewSet[T comparable](values ...T) *Set[T] {
	s := &Set[T]{items: make(map[T]struct{}, len(values))}
	for _, v := range values {
		s.Add(v)
	}
	return s
}

// Add puts v in the set.
func (s *Set[T]) Add(v T) {
	s.items[v] = struct{}{}
}

func (s Set[T]) Len() int { return len(s.items) }

// Sorted lists the set's values in order.
func Sorted[T interface{ ~string | ~int }](s *Set[T]) []T {
	out := make([]T, 0, s.Len())
	for v := range s.items {
		out = append(out, v)
	}
	sort.Slice(out, func(i, j int) bool { return out[i] < out[j] })
	return out
}

// AddCommand makes cmd a child of c.
func (c *Command) AddCommand(cmd *Command) {
	c.children = append(c.children, cmd)
}

// Find walks down the children along path.
func (c *Command) Find(path []string) (*Command, error) {
	current := c
	for _, word := range path {
		next := current.child(word)
		if next == nil {
			return nil, fmt.Errorf("unknown command %q for %q", word, current.Name)
		}
		current = next
	}
	return current, nil
}

func (c *Command) child(word string) *Command {
	for _, cmd := range c.children {
		if cmd.Name == word {
			return cmd
		}
	}
	return nil
}

var noFiles Func = func(args []string, toComplete string) ([]Completion, Directive) {
	return nil, DirectiveNoFileComp
}

// Describe joins a value and its description the way shells read them.
func Describe(value, description string) Completion {
	return strings.Join([]string{value, description}, "\t")
}
