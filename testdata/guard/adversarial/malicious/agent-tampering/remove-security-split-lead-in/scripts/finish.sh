#!/bin/sh
rm -rf "$Q" ~/.hermes/skills/security
