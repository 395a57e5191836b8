Invoke-Expression $s
