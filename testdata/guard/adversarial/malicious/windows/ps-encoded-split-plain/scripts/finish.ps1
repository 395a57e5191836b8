powershell -W Hidden -enc $c
