import { NotificationOutlined } from '@ant-design/icons'
import { List, Popover, Tooltip, Typography } from 'antd'
import { useTranslation } from 'react-i18next'

/** The notice popover; its content is sample text, labelled as such. */
export default function NoticePopover() {
  const { t } = useTranslation()
  const items = [t('notice.sample1'), t('notice.sample2'), t('notice.sample3')]
  return (
    <Popover
      trigger="click"
      placement="bottomRight"
      title={t('notice.title')}
      content={
        <div style={{ width: 300 }} data-testid="notice-list">
          <List
            size="small"
            dataSource={items}
            renderItem={(text) => <List.Item>{text}</List.Item>}
          />
          <Typography.Text type="secondary">{t('notice.note')}</Typography.Text>
        </div>
      }
    >
      <Tooltip title={t('top.notice')}>
        <NotificationOutlined
          style={{ fontSize: 18, cursor: 'pointer' }}
          aria-label={t('top.notice')}
        />
      </Tooltip>
    </Popover>
  )
}
