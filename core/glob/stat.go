package glob

import (
	"io/fs"
	"os"
	"path/filepath"
)

func lstatFile(p string) (fs.FileInfo, error) { return os.Lstat(p) }

func evalSymlinks(p string) (string, error) { return filepath.EvalSymlinks(p) }
