// Markdown files are bundled as their text (build.mjs: the .md loader).
declare module "*.md" {
  const text: string;
  export default text;
}
