/* reloc.c - compiled to a relocatable object (ET_REL): not executable. */
int reloc_answer(void) { return 42; }
