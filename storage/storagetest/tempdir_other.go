//go:build !linux

package storagetest

import "os"

// clusterParentDir is where the throwaway cluster's directory goes.
func clusterParentDir() string { return os.TempDir() }
