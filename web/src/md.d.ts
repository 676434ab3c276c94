// Markdown files are bundled as their text (build.mjs: the .md loader).
declare module "*.md" {
  const text: string;
  export default text;
}

// Catalogs and documents found by build.mjs in their directories (the
// catalogs plugin): adding a language is adding its files.
declare module "catalogs:web" {
  const catalogs: Record<string, Record<string, string | Record<string, string>>>;
  export default catalogs;
}
declare module "catalogs:reason" {
  const catalogs: Record<string, Record<string, string | Record<string, string>>>;
  export default catalogs;
}
declare module "catalogs:rules" {
  /** Each language's rules documents by game; "en" is docs/rules/<game>.md. */
  const docs: Record<string, Record<string, string>>;
  export default docs;
}
