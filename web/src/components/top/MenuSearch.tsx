import { SearchOutlined } from '@ant-design/icons'
import { AutoComplete, Empty, Input, List, Modal, Tooltip } from 'antd'
import { useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router-dom'
import { useMenuNodes } from '../../layouts/useMenuNodes'
import { openMenu } from '../../layouts/openMenu'
import { menuLeaves, searchMenu } from '../../router/menu'
import { useLayoutStore } from '../../stores/layout'
import { MenuIcon } from '../MenuIcon'

/** Top autocomplete menu search (case-insensitive prefix of the menu name). */
export function TopSearch() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const nodes = useMenuNodes()
  const [query, setQuery] = useState('')
  const matches = useMemo(() => searchMenu(nodes, query), [nodes, query])
  return (
    <AutoComplete
      data-testid="top-search"
      style={{ width: 180 }}
      value={query}
      onSearch={setQuery}
      onChange={setQuery}
      options={matches.map((node) => ({ value: node.key, label: node.name }))}
      onSelect={(key: string) => {
        const node = menuLeaves(nodes).find((item) => item.key === key)
        setQuery('')
        if (node) openMenu(node, navigate)
      }}
    >
      <Input size="small" prefix={<SearchOutlined />} placeholder={t('menu.search')} allowClear />
    </AutoComplete>
  )
}

/** Menu search panel: closes on Esc; case-insensitive prefix of the menu name. */
export function MenuSearchPanel() {
  const { t } = useTranslation()
  const navigate = useNavigate()
  const nodes = useMenuNodes()
  const open = useLayoutStore((s) => s.searchOpen)
  const setOpen = useLayoutStore((s) => s.setSearchOpen)
  const [query, setQuery] = useState('')
  const matches = useMemo(() => searchMenu(nodes, query), [nodes, query])

  useEffect(() => {
    if (!open) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key === 'Escape') setOpen(false)
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [open, setOpen])

  return (
    <>
      <Tooltip title={t('menu.searchPanel')}>
        <SearchOutlined
          data-testid="search-panel-button"
          style={{ fontSize: 18, cursor: 'pointer' }}
          onClick={() => setOpen(true)}
        />
      </Tooltip>
      <Modal
        title={t('menu.searchPanel')}
        open={open}
        footer={null}
        onCancel={() => setOpen(false)}
        afterClose={() => setQuery('')}
        destroyOnHidden
        data-testid="search-panel"
      >
        <Input
          autoFocus
          value={query}
          onChange={(event) => setQuery(event.target.value)}
          placeholder={t('menu.searchHint')}
          prefix={<SearchOutlined />}
        />
        <List
          style={{ marginTop: 12, maxHeight: 360, overflow: 'auto' }}
          dataSource={matches}
          locale={{
            emptyText: query.trim() ? (
              <Empty image={Empty.PRESENTED_IMAGE_SIMPLE} description={t('menu.noMatch')} />
            ) : (
              ' '
            ),
          }}
          renderItem={(node) => (
            <List.Item
              style={{ cursor: 'pointer' }}
              onClick={() => {
                setOpen(false)
                openMenu(node, navigate)
              }}
            >
              <List.Item.Meta avatar={<MenuIcon name={node.icon} />} title={node.name} />
            </List.Item>
          )}
        />
      </Modal>
    </>
  )
}
