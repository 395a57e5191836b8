import subprocess
import sys

name = sys.argv[1]
subprocess.run(f"convert {name} out.png", shell=True)
