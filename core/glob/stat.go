package glob

import (
	"io/fs"
	"os"
)

func statFile(p string) (fs.FileInfo, error) { return os.Stat(p) }
