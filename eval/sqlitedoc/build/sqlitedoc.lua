-- Clean a page of the SQLite documentation (as shipped in Debian's sqlite3-doc) for the
-- gfm writer.  Run by build/convert.py as pandoc's --lua-filter; the filters below are
-- applied in order, each over the whole document.
--   1. drop the site chrome: the header div (logo, menus, search form, the "fancy"
--      title and table of contents: all inside <div class=nosearch>), scripts, the
--      syntax diagrams (SVG in <div class=imgcontainer>) with their "name:" + [hide]
--      label paragraph, images (figures keep their caption line), and the
--      "This page last modified on ..." footer;
--   2. links become their text, spans and divs their content (no anchors survive);
--   3. headings: the page title (<title>) becomes the only '# ' heading; on "fancy"
--      pages the body's <h1> sections become '## ', <h2> '### ' ...; on plain pages
--      the <h1> is the title itself and is dropped (its <h2> stay '## ');
--   4. <blockquote><pre> code becomes a plain fenced block (class "text" when the page
--      names no language); a one-cell layout table around a <pre> becomes the block;
--      table cells are flattened to one line so that every table is a pipe table.

local fancy = false

local function is_syntax_label(blocks_or_inlines)
  -- <p><b><a href="syntax/create-table-stmt.html">create-table-stmt:</a></b>
  -- <button ...>hide</button></p> (the button's text is "hide" or "show")
  local seen_link = false
  for _, il in ipairs(blocks_or_inlines) do
    if il.t == "Strong" and #il.content == 1 and il.content[1].t == "Link"
        and il.content[1].target:match("^syntax/") then
      seen_link = true
    elseif il.t ~= "Space" and il.t ~= "SoftBreak" and il.t ~= "LineBreak"
        and il.t ~= "RawInline" and not (il.t == "Str" and (il.text == "hide" or il.text == "show")) then
      return false
    end
  end
  return seen_link
end

local chrome = {
  Div = function(el)
    if el.classes:includes("nosearch") or el.classes:includes("imgcontainer") then
      return {}
    end
    if el.classes:includes("fancy") then fancy = true end
    return el
  end,
  Para = function(el)
    if is_syntax_label(el.content) then return {} end
    if pandoc.utils.stringify(el):match("^%s*This page last modified") then return {} end
    return el
  end,
  Plain = function(el)
    if is_syntax_label(el.content) then return {} end
    if pandoc.utils.stringify(el):match("^%s*This page last modified") then return {} end
    return el
  end,
  RawBlock = function(el) return {} end,
  RawInline = function(el) return {} end,
  Image = function(el) return {} end,
  -- <u>not</u> is emphasis; a superscript (the footnote marks of lang_expr's operator
  -- table) is written ^n, as gfm has no superscript (or subscript)
  Underline = function(el) return pandoc.Emph(el.content) end,
  Superscript = function(el)
    local s = pandoc.utils.stringify(el):gsub("^%s+", ""):gsub("%s+$", "")
    if not s:match("%w") then return {} end  -- <sup>&ensp;</sup>: spacing only
    return pandoc.Str("^" .. s)
  end,
  -- N<sub>left</sub> (lang_select's cartesian product) is written N_left
  Subscript = function(el) return pandoc.Str("_" .. pandoc.utils.stringify(el)) end,
}

local unwrap = {
  Link = function(el) return el.content end,
  Span = function(el) return el.content end,
  Div = function(el) return el.content end,
}

local function cell_line(blocks)
  -- a table cell's blocks as one line of inlines (pipe tables hold no blocks or
  -- line breaks; with --wrap=preserve even a soft break would split the row)
  blocks = pandoc.walk_block(pandoc.Div(blocks), {
    LineBreak = function() return pandoc.Space() end,
    SoftBreak = function() return pandoc.Space() end,
  }).content
  local out = pandoc.List()
  for i, b in ipairs(blocks) do
    if i > 1 then out:insert(pandoc.Space()) end
    if b.t == "CodeBlock" then
      out:insert(pandoc.Code((b.text:gsub("%s+", " "))))
    elseif b.content then
      local inl = pandoc.utils.blocks_to_inlines({b}, {pandoc.Space()})
      out:extend(inl)
    else
      out:insert(pandoc.Str(pandoc.utils.stringify(b)))
    end
  end
  return pandoc.List({pandoc.Plain(out)})
end

local function strip_code(el)
  el.text = el.text:gsub("^%s*\n", ""):gsub("%s+$", "")
  if #el.classes == 0 then el.classes = {"text"} end
  el.identifier = ""
  el.attributes = {}
  return el
end

local blocks = {
  Header = function(el)
    el.identifier = ""
    el.classes = {}
    el.attributes = {}
    if fancy then el.level = el.level + 1 end
    return el
  end,
  CodeBlock = strip_code,
  BlockQuote = function(el)
    -- <blockquote><pre> or <blockquote><table>: the blockquote only indents
    local only_code = #el.content > 0
    for _, b in ipairs(el.content) do
      if b.t ~= "CodeBlock" and b.t ~= "Table" then only_code = false end
    end
    if only_code then return el.content end
    return el
  end,
  Table = function(el)
    local rows = {}
    for _, body in ipairs(el.bodies) do
      for _, r in ipairs(body.head) do table.insert(rows, r) end
      for _, r in ipairs(body.body) do table.insert(rows, r) end
    end
    for _, r in ipairs(el.head.rows) do table.insert(rows, r) end
    if #rows == 1 and #rows[1].cells == 1 then
      return rows[1].cells[1].contents  -- a layout table around one block
    end
    local function flatten(row)
      for _, c in ipairs(row.cells) do c.contents = cell_line(c.contents) end
    end
    for _, r in ipairs(el.head.rows) do flatten(r) end
    for _, body in ipairs(el.bodies) do
      for _, r in ipairs(body.head) do flatten(r) end
      for _, r in ipairs(body.body) do flatten(r) end
    end
    for _, r in ipairs(el.foot.rows) do flatten(r) end
    for i, cs in ipairs(el.colspecs) do el.colspecs[i] = {cs[1], pandoc.ColWidthDefault} end
    el.attr = pandoc.Attr()
    return el
  end,
}

local title = {
  Pandoc = function(doc)
    local t = pandoc.utils.stringify(doc.meta.title or "")
    local out = pandoc.List({pandoc.Header(1, pandoc.Str(t))})
    local dropped = fancy
    for _, b in ipairs(doc.blocks) do
      if not dropped and b.t == "Header" and b.level == 1 then
        dropped = true  -- a plain page's <h1> repeats the <title>
      else
        out:insert(b)
      end
    end
    doc.blocks = out
    doc.meta = {}
    return doc
  end,
}

return {chrome, unwrap, blocks, title}
