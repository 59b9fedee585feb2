package core

import (
	"slices"
	"sort"
	"strings"
)

// ActionFields is implemented by the applets whose "action" field selects what a call
// does (bash jobs, permit, skill). It lists, for every action, the request fields that
// action uses; FillParams refuses a call that sets any other field, so nothing a model
// sends is silently ignored ("bash list does not use command").
type ActionFields interface {
	ActionFields() (applet string, uses map[string][]string)
}

// ActionInferrer is implemented by an ActionFields applet that infers the action from
// the fields when none is given (skill: a name alone loads it).
type ActionInferrer interface {
	InferAction(present map[string]bool) string
}

// checkActionFields refuses fields the chosen action does not use. present holds the
// fields the request set (before defaults); action is the action after defaults.
func checkActionFields(cmd Command, present map[string]bool, action string) error {
	af, ok := cmd.(ActionFields)
	if !ok {
		return nil
	}
	if !present["action"] {
		if inf, ok := cmd.(ActionInferrer); ok {
			if a := inf.InferAction(present); a != "" {
				action = a
			}
		}
	}
	applet, table := af.ActionFields()
	uses, known := table[action]
	if !known {
		return nil // the enum check has already said what the actions are
	}
	var unused []string
	for f := range present {
		if f != "action" && !slices.Contains(uses, f) {
			unused = append(unused, f)
		}
	}
	if len(unused) == 0 {
		return nil
	}
	sort.Strings(unused)
	var users []string
	for a, fs := range table {
		for _, f := range unused {
			if slices.Contains(fs, f) && !slices.Contains(users, a) {
				users = append(users, a)
			}
		}
	}
	sort.Strings(users)
	msg := applet + " " + action + " does not use " + strings.Join(unused, ", ") + "; remove it"
	if len(unused) > 1 {
		msg = applet + " " + action + " does not use " + strings.Join(unused, ", ") + "; remove them"
	}
	if len(uses) > 0 {
		msg += " (" + action + " uses: " + strings.Join(uses, ", ") + ")"
	}
	if len(users) > 0 {
		msg += ", or choose the action that does: " + strings.Join(users, ", ")
	}
	return Errorf(CodeInvalidParams, "%s", msg)
}
