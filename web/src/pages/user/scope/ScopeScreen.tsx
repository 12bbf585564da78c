import { Col, Row } from 'antd'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Entity } from '../../../api/crud'
import { menuTree } from '../../../api/system/menuAdmin'
import CrudPage from '../../../components/crud/CrudPage'
import SideTree from '../../../components/crud/SideTree'
import type { CrudConfig } from '../../../components/crud/types'

/**
 * Scopes beside the menu tree: picking a menu lists its scopes (`list?menuId=`) and new scopes
 * start under it.
 */
export default function ScopeScreen<T extends Entity>({ config }: { config: CrudConfig<T> }) {
  const { t } = useTranslation()
  const [menuId, setMenuId] = useState<string>()
  const query = useMemo(() => (menuId ? { menuId } : undefined), [menuId])
  const withMenu = useMemo(
    () => ({ ...config, addDefaults: { ...config.addDefaults, menuId } }),
    [config, menuId],
  )
  return (
    <Row gutter={16} wrap={false}>
      <Col flex="260px">
        <SideTree
          title={t('scope.menus')}
          load={menuTree}
          onSelect={setMenuId}
          testId="scope-menu-tree"
        />
      </Col>
      <Col flex="auto" style={{ minWidth: 0 }}>
        <CrudPage config={withMenu} query={query} />
      </Col>
    </Row>
  )
}
