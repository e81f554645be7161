package cli

import (
	"os"
	"path/filepath"
)

// Generators of the write cases of issue 19: directories that another
// user could have prepared for schedoctor to write into.

func init() {
	registerHostileGen("save-planted", genSavePlanted)
	registerHostileGen("save-world-writable", genSaveWorldWritable)
}

// genSavePlanted makes planted/ with links, named like the capture files,
// to a 0600 file and to a file that does not exist yet.
func genSavePlanted(dir string) error {
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte("root-only\n"), 0o600); err != nil {
		return err
	}
	planted := filepath.Join(dir, "planted")
	if err := os.Mkdir(planted, 0o700); err != nil {
		return err
	}
	for name, to := range map[string]string{"manifest.json": secret, "goroutine-start.txt": secret, "profile.pb.gz": filepath.Join(dir, "new")} {
		if err := os.Symlink(to, filepath.Join(planted, name)); err != nil {
			return err
		}
	}
	return nil
}

// genSaveWorldWritable makes an empty world-writable ww/.
func genSaveWorldWritable(dir string) error {
	ww := filepath.Join(dir, "ww")
	if err := os.Mkdir(ww, 0o700); err != nil {
		return err
	}
	return os.Chmod(ww, 0o1777)
}
