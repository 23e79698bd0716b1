package tree

import "fmt"

func errGroupMismatch(tree, group int) error {
	return fmt.Errorf("%w: tree has %d members, group has %d", ErrGroup, tree, group)
}
