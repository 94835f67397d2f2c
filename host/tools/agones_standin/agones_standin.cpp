// placeholder: the stand-in is being written
